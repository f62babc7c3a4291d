"""The write model: the unit of work through which every memory change goes, and attachment holders."""
