"""Offline extraction and reconciliation: deterministic rules used when no LLM is configured,
and as the preference shortcut that lets well-understood messages skip the LLM (seed 004)."""

from engram.offline.extractor import OfflineExtractor
from engram.offline.reconciler import KeyReconciler

__all__ = ["KeyReconciler", "OfflineExtractor"]
