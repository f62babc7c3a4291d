"""Write-sharded counter items: one logical counter spread over N items, summed when read.

A DynamoDB partition takes ~1,000 writes a second per key; a tenant-wide counter item (usage per day,
queue gauges) written by every worker of a busy tenant hits that alone. Shard 0 is the unsharded key
itself, so counts written before sharding (or with N = 1) are still read, and N can be raised at any
time (lowering it hides the higher shards' counts until it is raised again)."""

from __future__ import annotations

import itertools
import random


def once_per_add_shards(shards: int) -> int:
    """Shards of a counter written once per add (usage per day, queue totals): a quarter of those of
    the queue gauge, written three times per add, so reads stay few (a key in a BatchGetItem each)."""
    return max(1, shards // 4)


def shard_key(base: str, shard: int) -> str:
    return base if shard == 0 else f"{base}#s{shard}"


def shard_keys(base: str, shards: int) -> list[str]:
    """Every shard's key of `base`: what a read sums."""
    return [shard_key(base, k) for k in range(max(1, shards))]


class ShardTurn:
    """Picks the shard of the next write: round robin from a random start, so one container's writes
    spread evenly and many containers' do not start on the same shard."""

    def __init__(self, shards: int) -> None:
        self.shards = max(1, shards)
        self._turn = itertools.count(random.randrange(self.shards))  # noqa: S311 (spreads load, not a secret)

    def next(self) -> int:
        return next(self._turn) % self.shards
