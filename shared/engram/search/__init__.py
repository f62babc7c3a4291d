"""Search: the stages of a relevance query and their ranking (hybrid fusion, time, intent, reranking)."""
