"""The gRPC transport: lifecycle, servicer, interceptors, proto conversion, status mapping."""
