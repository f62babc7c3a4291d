"""Cosine in context for the embedded index: a memory scored as if its vector were blended with the
vectors of the memories recorded around it.

A turn of a conversation rarely says everything it is about ("Yes, the Prius broke down again" is
about Evan's car because of the turns before it). Scoring each memory against
normalise(v_i + w1 (v_i-1 + v_i+1) + w2 (v_i-2 + v_i+2)) - neighbours in recording order, within
`within` seconds of each other - equals (c_i + w1 (c_i-1 + c_i+1) + ...) / |blend_i| for the plain
cosines c, so a query costs a few shifted adds over the cosines the index computes anyway; only
the blend norms need the vectors, and they are kept until the user's next write.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.intp]
BoolArray = npt.NDArray[np.bool_]


def _links(created: npt.NDArray[np.float64], distance: int, within: float) -> BoolArray:
    """For each position p < n - distance: whether p and p + distance are within `within` seconds."""
    return np.asarray(created[distance:] - created[:-distance] <= within)


def blend_norms(
    vectors: FloatArray, order: IntArray, created: npt.NDArray[np.float64], weights: Sequence[float], within: float
) -> FloatArray:
    """|blend| per position of `order` (vectors are rows, `created` is in recording order)."""
    ordered = vectors[order]
    blend = ordered.copy()
    for distance, weight in enumerate(weights, start=1):
        if distance >= order.size:
            break
        link = (weight * _links(created, distance, within)).astype(np.float32)[:, None]
        blend[:-distance] += link * ordered[distance:]
        blend[distance:] += link * ordered[:-distance]
    norms: FloatArray = np.linalg.norm(blend, axis=1).astype(np.float32)
    return np.maximum(norms, np.float32(1e-6))


def in_context(
    cosines: FloatArray,
    order: IntArray,
    created: npt.NDArray[np.float64],
    norms: FloatArray,
    weights: Sequence[float],
    within: float,
) -> FloatArray:
    """Cosines per row (as given) turned into cosines with each row's blend."""
    ordered = cosines[order]
    blended = ordered.copy()
    for distance, weight in enumerate(weights, start=1):
        if distance >= order.size:
            break
        link = weight * _links(created, distance, within)
        blended[:-distance] += link * ordered[distance:]
        blended[distance:] += link * ordered[:-distance]
    result = np.empty_like(cosines)
    result[order] = blended / norms
    return result
