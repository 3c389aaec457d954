"""Who is calling: API keys and JWT bearer tokens turned into a `Principal`."""
