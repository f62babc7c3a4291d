"""The use cases: what the API and the worker do (add, search, read, correct, forget, import, tasks)."""
