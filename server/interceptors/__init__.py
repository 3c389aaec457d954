"""Server interceptors, one concern each."""
