"""The local model's line-break tokens come from its GGUF file's vocabulary, in either spelling a
tokenizer uses; a file that is not a readable GGUF says so instead of banning nothing."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from engram_tools.local.gguf_vocab import GGUFError, line_break_tokens, main, read_vocab


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def _entry(key: str, kind: int, value: bytes) -> bytes:
    return _string(key) + struct.pack("<I", kind) + value


def write_gguf(path: Path, model: str | None, tokens: list[str] | None) -> Path:
    entries = [
        _entry("general.architecture", 8, _string("qwen2")),
        _entry("general.file_type", 4, struct.pack("<I", 15)),
        # a block of scalars before the tokens (merges' scores in real files): read past, not misparsed
        _entry("tokenizer.ggml.scores", 9, struct.pack("<IQ", 6, 3) + struct.pack("<3f", 0.0, -1.0, -2.0)),
    ]
    if model is not None:
        entries.append(_entry("tokenizer.ggml.model", 8, _string(model)))
    if tokens is not None:
        items = b"".join(_string(t) for t in tokens)
        entries.append(_entry("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, len(tokens)) + items))
    header = b"GGUF" + struct.pack("<IQQ", 3, 0, len(entries))
    path.write_bytes(header + b"".join(entries) + b"\0" * 64)  # tensor data follows; never read
    return path


def test_byte_level_vocabularies_spell_line_breaks_as_their_byte_characters(tmp_path: Path) -> None:
    # "Ċ" is byte 0x0A and "č" byte 0x0D in GPT-2's byte-level alphabet (Qwen, SmolLM2, Llama 3)
    tokens = ["{", "\u010a", "\u0120\u0120\u010a", "Munich", "\u010d\u010a", '",', "\u0120"]
    path = write_gguf(tmp_path / "bpe.gguf", "gpt2", tokens)

    assert read_vocab(path) == ("gpt2", tokens)
    assert line_break_tokens(path) == [1, 2, 4]


def test_sentencepiece_vocabularies_spell_them_as_byte_tokens_or_themselves(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "spm.gguf", "llama", ["<unk>", "<0x0A>", "\u2581the", "a\nb", "<0x0D>", "\u010a"])

    assert line_break_tokens(path) == [1, 3, 4]  # "Ċ" is a letter here, not a byte


def test_the_command_prints_the_ids_comma_separated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_gguf(tmp_path / "bpe.gguf", "gpt2", ["a", "\u010a", "b", "\u010a\u010a"])

    assert main([str(path)]) == 0
    assert capsys.readouterr().out == "1,3\n"
    assert main([]) == 2


def test_a_file_that_is_not_a_readable_gguf_model_is_refused(tmp_path: Path) -> None:
    not_gguf = tmp_path / "model.bin"
    not_gguf.write_bytes(b"PK\x03\x04 not a model")
    whole = write_gguf(tmp_path / "whole.gguf", "gpt2", ["a", "\u010a"])
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(whole.read_bytes()[:60])
    no_tokens = write_gguf(tmp_path / "none.gguf", "gpt2", None)

    with pytest.raises(GGUFError, match="not a GGUF file"):
        read_vocab(not_gguf)
    with pytest.raises(GGUFError, match="ends inside"):
        read_vocab(cut)
    with pytest.raises(GGUFError, match=r"no tokenizer\.ggml\.tokens"):
        read_vocab(no_tokens)
