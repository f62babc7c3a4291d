"""A GGUF model file's vocabulary, and the tokens in it that write a line break.

llama.cpp turns a JSON schema into a grammar that lets the model put a line break and indentation
between any two tokens of the JSON, and a small model takes them: the 1.5B indented 33 of 40 answers
(twice the characters of the same answer on one line), and every answer that ran on to the token
limit was indented. Banning the tokens that hold a line break (OpenAI's ``logit_bias``, -100) leaves
the grammar only spaces: the same JSON on one line. No JSON value can hold a raw line break, so
nothing the answer means is lost.

    python -m engram_tools.local.gguf_vocab MODEL.gguf     # its line-break tokens, comma-separated

Reads the file's metadata (GGUF v2/v3, little-endian) up to the token list; the tensors are not read.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path
from typing import BinaryIO

MAGIC = b"GGUF"
TOKENS_KEY = "tokenizer.ggml.tokens"
MODEL_KEY = "tokenizer.ggml.model"

# Value types of the GGUF metadata: fixed-size scalars by their struct format.
_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9

# Byte-level BPE vocabularies (tokenizer model "gpt2": Qwen, SmolLM2, Llama 3) spell the bytes 0x0A and
# 0x0D as these two characters; SentencePiece ones ("llama") as byte tokens or the characters themselves.
_BPE_BREAKS = ("\u010a", "\u010d")
_SPM_BREAKS = ("\n", "\r", "<0x0A>", "<0x0D>")


class GGUFError(ValueError):
    """The file is not a GGUF model this reader understands."""


class _Reader:
    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream

    def take(self, fmt: str) -> int | float | bool:
        size = struct.calcsize("<" + fmt)
        data = self.stream.read(size)
        if len(data) != size:
            raise GGUFError("the file ends inside its metadata")
        return struct.unpack("<" + fmt, data)[0]  # type: ignore[no-any-return]

    def string(self) -> str:
        length = int(self.take("Q"))
        data = self.stream.read(length)
        if len(data) != length:
            raise GGUFError("the file ends inside a string")
        return data.decode("utf-8", errors="replace")

    def value(self, kind: int) -> object:
        if kind in _SCALARS:
            return self.take(_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            item_kind, count = int(self.take("I")), int(self.take("Q"))
            if item_kind in _SCALARS:  # a block of scalars (merges' scores): read whole
                fmt = f"<{count}{_SCALARS[item_kind]}"
                data = self.stream.read(struct.calcsize(fmt))
                if len(data) != struct.calcsize(fmt):
                    raise GGUFError("the file ends inside an array")
                return list(struct.unpack(fmt, data))
            return [self.value(item_kind) for _ in range(count)]
        raise GGUFError(f"unknown metadata value type {kind}")


def read_vocab(path: Path) -> tuple[str, list[str]]:
    """The tokenizer's model name ("gpt2", "llama", ...) and its tokens, by id."""
    with path.open("rb") as stream:
        reader = _Reader(stream)
        if stream.read(4) != MAGIC:
            raise GGUFError(f"{path} is not a GGUF file")
        version = int(reader.take("I"))
        if version not in (2, 3):
            raise GGUFError(f"{path}: GGUF version {version} is not supported (2 or 3)")
        reader.take("Q")  # tensors
        entries = int(reader.take("Q"))
        model = ""
        for _ in range(entries):
            key, kind = reader.string(), int(reader.take("I"))
            value = reader.value(kind)
            if key == MODEL_KEY:
                model = str(value)
            elif key == TOKENS_KEY:
                if not isinstance(value, list):
                    raise GGUFError(f"{path}: {TOKENS_KEY} is not a list")
                return model, [str(token) for token in value]
    raise GGUFError(f"{path} has no {TOKENS_KEY}")


def line_break_tokens(path: Path) -> list[int]:
    """The ids of every token whose text holds a line break (CR or LF)."""
    model, tokens = read_vocab(path)
    breaks = _SPM_BREAKS if model == "llama" else _BPE_BREAKS
    return [i for i, token in enumerate(tokens) if any(b in token for b in breaks)]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m engram_tools.local.gguf_vocab MODEL.gguf", file=sys.stderr)
        return 2
    print(",".join(str(i) for i in line_break_tokens(Path(argv[0]))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
