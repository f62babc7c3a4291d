"""The OpenAI-compatible chat, LLM and embedding adapters."""
