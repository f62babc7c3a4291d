"""Background maintenance of the memory store: repair (facts <-> index), expire, dedupe, summarise, prune."""
