"""What the OpenAI door's tests share."""
