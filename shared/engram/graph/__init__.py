"""Graph memory: entities and relations beside the facts (extraction, resolution, apply, search)."""
