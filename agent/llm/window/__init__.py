"""The model's context window: counting tokens (OpenAI encodings, estimates for other
models), each model's limits (`catalog`), and fitting a request into them (`fitting`)."""
