"""The vector index on OpenSearch."""
