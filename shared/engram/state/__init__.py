"""The memory state: what a memory states (its statements), the catalogue of attributes, the readers that find
statements in text, and the resolution that outdates older statements by event time (docs/memory-state.md)."""
