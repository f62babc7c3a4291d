"""The embedded vector index on SQLite and numpy, for running without OpenSearch."""
