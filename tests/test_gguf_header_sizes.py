"""Where a GGUF file's tensors end is worked out from its common tensor types' sizes without loading gguf's table of
them (search.model.gguf_header.COMMON_SIZES; the table took 13.5 ms of CPU to load, more than MiniLM's whole header,
in every process that reads the model's header): the same end as the table gives, and the table for another type."""
from __future__ import annotations

import struct

import pytest

from search.model import gguf_header


def _string(text: bytes) -> bytes:
    return struct.pack("<Q", len(text)) + text


def header(tensors: list[tuple[int, list[int], int]]) -> bytes:
    """A GGUF v3 header of no keys and ``tensors`` (ggml type, dims, offset)."""
    table = b"".join(_string(b"t%d" % i) + struct.pack(f"<I{len(dims)}QIQ", len(dims), *dims, kind, offset)
                     for i, (kind, dims, offset) in enumerate(tensors))
    return b"GGUF" + struct.pack("<IQQ", 3, len(tensors), 0) + table


def test_the_common_sizes_are_ggufs():
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType
    for kind, size in gguf_header.COMMON_SIZES.items():
        assert GGML_QUANT_SIZES[GGMLQuantizationType(kind)] == size


@pytest.mark.parametrize("kind", [0, 1, 8, 30])
def test_a_header_of_common_types_is_read_without_ggufs_table(tmp_path, monkeypatch, kind):
    path = tmp_path / "m.gguf"
    path.write_bytes(header([(0, [384, 30522], 0), (kind, [384, 1536], 384 * 30522 * 4)]))
    gguf_header._quant_sizes.cache_clear()
    end = gguf_header.read_header(path).data_end
    assert gguf_header._quant_sizes.cache_info().misses == 0
    monkeypatch.setattr(gguf_header, "COMMON_SIZES", {})  # every size from gguf's table
    assert gguf_header.read_header(path).data_end == end


def test_another_type_is_read_from_ggufs_table_and_an_unknown_one_refused(tmp_path):
    path = tmp_path / "m.gguf"
    data = header([(10, [256, 4], 0)])  # Q2_K: 256 elements in 84 bytes
    path.write_bytes(data)
    assert gguf_header.read_header(path).data_end == len(data) + -len(data) % 32 + 4 * 84  # padded to 32 bytes
    path.write_bytes(header([(1000, [256, 4], 0)]))
    with pytest.raises(ValueError, match="unknown tensor type 1000"):
        gguf_header.read_header(path)
