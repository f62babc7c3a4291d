"""Offline extraction: deterministic rules used when no LLM is configured, and as the preference
shortcut that lets well-understood messages skip the LLM. Their reconciler is engram.reconcile.offline."""

from engram.offline.extractor import OfflineExtractor

__all__ = ["OfflineExtractor"]
