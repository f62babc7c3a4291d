"""Operations: health, metrics, usage counters, the LLM circuit breaker and the busy log."""
