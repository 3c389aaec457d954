"""The sections of the settings, one module per concern (the package's docstring,
`server.settings`, names them); `server.settings.combined.Settings` holds them all."""
