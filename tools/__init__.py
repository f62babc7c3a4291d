"""Development tools (not part of the runtime package)."""
