"""Reading without a model: deterministic rules over what people say (facts, keys, relations, dates).

The offline extractor uses them when no LLM is configured, and as the preference shortcut that lets
well-understood messages skip the LLM; the LLM path uses their keys, dates and relations too.
Their reconciler is engram.reconcile.offline."""

from engram.rules.extractor import OfflineExtractor

__all__ = ["OfflineExtractor"]
