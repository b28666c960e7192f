"""A GGUF header's string arrays (a tokenizer's tokens) are stepped over a block at a time
(search.model.gguf_header._skip_strings): the keys after them are read, wherever the blocks end, and a file that
ends inside one is refused."""
from __future__ import annotations

import struct

import pytest

from search.model import gguf_header


def _string(text: bytes) -> bytes:
    return struct.pack("<Q", len(text)) + text


def header(tokens: list[bytes]) -> bytes:
    """A GGUF v3 header of no tensors: a string array 'tokens', then the u32 key 'after' = 7."""
    kv = (_string(b"tokens") + struct.pack("<IIQ", gguf_header.ARRAY, gguf_header.STRING, len(tokens))
          + b"".join(_string(t) for t in tokens)
          + _string(b"after") + struct.pack("<II", 4, 7))
    return b"GGUF" + struct.pack("<IQQ", 3, 0, 2) + kv


TOKENS = [b"", b"a", b"bc" * 5, b"x" * 40, b"y", b"z" * 17, b"", b"end"]  # a string longer than a block, empty ones


@pytest.mark.parametrize("block", [8, 9, 16, 23, 1 << 20])
def test_the_keys_after_a_string_array_are_read_wherever_the_blocks_end(tmp_path, monkeypatch, block):
    monkeypatch.setattr(gguf_header, "STRINGS_BLOCK", block)
    path = tmp_path / "m.gguf"
    path.write_bytes(header(TOKENS))
    assert gguf_header.read_header(path).fields == {"after": 7}


def test_a_file_ending_inside_the_string_array_is_refused(tmp_path):
    data = header(TOKENS)
    path = tmp_path / "m.gguf"
    path.write_bytes(data[:data.index(b"z" * 17) - 8 + 3])  # inside the length of one of its strings
    with pytest.raises(ValueError, match="ends inside its header"):
        gguf_header.read_header(path)
