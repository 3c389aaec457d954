"""What a server serves beside its gRPC services, wired: A2A (`a2a`: the service on the
gRPC port, and `a2a_serving`: its lifecycle and its door) and the HTTP address with the
doors AGENTD_HTTP_DOORS switches on (`http`)."""
