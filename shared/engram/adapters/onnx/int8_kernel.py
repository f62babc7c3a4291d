"""Whether this CPU's int8 matrix kernel in onnxruntime sums exactly without being told to.

With VNNI (AVX512-VNNI, AVX-VNNI) onnxruntime multiplies u8 activations by s8 weights and adds the products in
32 bits: exact. Without it, x86's u8 x s8 kernel adds pairs of products in 16 bits and saturates, so the same
model gives other vectors there; `session.x64quantprecision` moves such a CPU to the exact u8u8 kernel. On a
VNNI CPU that option gives the same vectors (bitwise, 3,000 LoCoMo turns) but runs the u8u8 kernel there too,
about 40 % more CPU a text, so it is set only where it changes the sums (bench/journal/2026-11-29-run-c8eee9d.md).
"""

from __future__ import annotations

from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")
# Linux's names for the CPUID bits onnxruntime's kernel selection reads.
VNNI_FLAGS = frozenset({"avx512_vnni", "avx_vnni"})


def sums_exactly(cpuinfo: Path = CPUINFO) -> bool:
    """True when the CPU has VNNI; False when it has not or cannot be told (then the exact kernel is asked for,
    which is right on every CPU, only slower where VNNI was there)."""
    try:
        with cpuinfo.open() as lines:
            for line in lines:
                if line.startswith("flags"):  # every core lists the same flags: the first line says it
                    return not VNNI_FLAGS.isdisjoint(line.partition(":")[2].split())
    except OSError:
        return False
    return False
