"""Which CPUs get onnxruntime's exact int8 kernel asked for: the embedder's vectors are the same on every x86 CPU."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engram.adapters.onnx import embedder as onnx_embedder
from engram.adapters.onnx import int8_kernel, quantize
from engram.adapters.onnx.embedder import OnnxEmbedder, default_model_path, default_tokenizer_path

EPYC = "processor\t: 0\nflags\t\t: fpu sse4_1 avx2 avx512f avx512bw avx512_vnni sha_ni\nbugs\t\t: none\n"
ALDER_LAKE = "flags\t\t: fpu sse4_1 avx2 avx_vnni\n"
SKYLAKE = "processor\t: 0\nflags\t\t: fpu sse4_1 avx2 avx512f avx512bw avx512vl\n"
GRAVITON = "processor\t: 0\nFeatures\t: fp asimd asimddp\n"


@pytest.mark.parametrize(("cpuinfo", "exact"), [(EPYC, True), (ALDER_LAKE, True), (SKYLAKE, False), (GRAVITON, False)])
def test_only_a_cpu_with_vnni_sums_exactly_unasked(tmp_path: Path, cpuinfo: str, exact: bool) -> None:
    path = tmp_path / "cpuinfo"
    path.write_text(cpuinfo)
    assert int8_kernel.sums_exactly(path) is exact


def test_a_cpu_that_cannot_be_told_gets_the_exact_kernel_asked_for(tmp_path: Path) -> None:
    assert int8_kernel.sums_exactly(tmp_path / "no-such-file") is False


def test_this_cpus_vectors_are_the_exact_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever this CPU is, the embedder's vectors equal those of a session told to use the exact kernel: a
    CPU read wrongly as summing exactly (a saturating one) would give other vectors here."""
    texts = ["I moved to Lisbon last spring.", "My GP put me on metformin.", "ok", "Noah quit football " * 20]
    as_built = OnnxEmbedder(threads=1).embed(texts)
    monkeypatch.setattr(int8_kernel, "sums_exactly", lambda: False)
    told = onnx_embedder._build(
        default_model_path().resolve(), default_tokenizer_path().resolve(), 1, "int8", quantize.default_cache_dir()
    )
    exact = [onnx_embedder._embed_batch(told, [told.tokenizer.encode(text)])[0] for text in texts]
    assert np.array_equal(np.array(as_built, dtype=np.float32), np.array(exact, dtype=np.float32))
