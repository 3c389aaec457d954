"""The server's parts built from its settings (the composition root): stores and rate
limits (`stores`), models per role and named providers (`models`, `providers`,
`model_limits`), long-term memory and knowledge (`knowledge`), the engine and the rest
(`builders`), the role table, what start-up leaves until SERVING (`startup`), what the
gRPC server serves (`services`) and A2A when it is on (`a2a`, `a2a_serving`)."""
