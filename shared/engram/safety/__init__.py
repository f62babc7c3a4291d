"""Personal data and secrets: found and replaced before anything is stored (docs/safety.md)."""
