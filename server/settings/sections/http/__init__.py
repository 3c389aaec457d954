"""The settings of the HTTP address and its front doors (`address`: where it listens,
which doors it serves, how large a request body may be)."""
