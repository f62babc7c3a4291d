"""Background maintenance of the memory store: repair (facts <-> index), summarise, prune."""
