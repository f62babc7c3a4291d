"""The `engram` command line."""

from engram_client.cli.app import main

__all__ = ["main"]
