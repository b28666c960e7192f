"""Read a GGUF file's header — its scalar metadata and where its tensors end — without parsing arrays.

``gguf.GGUFReader`` builds a numpy view of every element of every array: for
multilingual-e5-small's 250,037 tokens, scores and token types that took 8 s
on a quiet machine and over a minute on a busy one, in every process that
looks at the model (the worker, ``ingest stats``, the MCP server). Sift needs
only the scalar keys and the tensors' sizes, so this reads the header in one
pass, stepping over arrays by their lengths (a string array still has to be
walked, but only its length prefixes are read).

Layout (GGUF v2/v3, little-endian): magic ``GGUF``, version u32, tensor count
u64, key/value count u64; each key/value: key string (u64 length + bytes),
value type u32, value; then each tensor: name string, n_dims u32, dims u64 ×
n_dims, ggml type u32, offset u64; then padding to ``general.alignment`` (32)
and the tensor data.
"""
from __future__ import annotations

import functools
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

# GGUF value types → struct formats (8 = string, 9 = array).
SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q",
           12: "<d"}
STRING, ARRAY = 8, 9
DEFAULT_ALIGNMENT = 32
MAX_COUNT = 1 << 40  # a count beyond this is a damaged file, not a model


@dataclass(frozen=True)
class Header:
    fields: dict[str, Any]  # scalar and string keys; arrays are left out
    tensors: int
    data_end: int  # where the last tensor's data ends, in bytes from the start of the file


def read_header(path: Path | str) -> Header:
    """The header of the GGUF file at ``path``; ValueError (with what is wrong) if it is not one."""
    with open(path, "rb", buffering=1 << 20) as f:
        if f.read(4) != b"GGUF":
            raise ValueError("no GGUF magic at the start of the file")
        version, n_tensors, n_kv = _unpack(f, "<IQQ")
        if version < 2:
            raise ValueError(f"GGUF version {version} is too old")
        if n_tensors > MAX_COUNT or n_kv > MAX_COUNT:
            raise ValueError("impossible tensor or key count")
        fields: dict[str, Any] = {}
        for _ in range(n_kv):
            key = _string(f)
            (kind,) = _unpack(f, "<I")
            value = _value(f, kind)
            if kind != ARRAY:
                fields[key] = value
        end = _tensor_data_end(f, n_tensors, int(fields.get("general.alignment") or DEFAULT_ALIGNMENT))
    return Header(fields, n_tensors, end)


# (elements per block, bytes per block) of the ggml types embedding models are stored in, as gguf's
# GGML_QUANT_SIZES has them: F32, F16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, BF16. A header whose tensors are all of these
# is read without gguf's table (``_quant_sizes``: 13.5 ms of CPU to load, more than MiniLM's whole header).
COMMON_SIZES = {0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34), 30: (1, 2)}


def _tensor_data_end(f: BinaryIO, n_tensors: int, alignment: int) -> int:
    end = 0
    for _ in range(n_tensors):
        _string(f)
        (n_dims,) = _unpack(f, "<I")
        dims = _unpack(f, f"<{n_dims}Q")
        kind, offset = _unpack(f, "<IQ")
        block, size = COMMON_SIZES.get(kind) or _block_size(kind)
        elements = 1
        for dim in dims:
            elements *= dim
        end = max(end, offset + elements // block * size)
    start = f.tell()
    start += -start % alignment
    return start + end


def _block_size(kind: int) -> tuple[int, int]:
    """(elements per block, bytes per block) of a ggml type other than COMMON_SIZES, from gguf's table."""
    GGML_QUANT_SIZES, GGMLQuantizationType = _quant_sizes()
    try:
        return GGML_QUANT_SIZES[GGMLQuantizationType(kind)]
    except (ValueError, KeyError):
        raise ValueError(f"unknown tensor type {kind}") from None


@functools.cache
def _quant_sizes():
    """gguf's table of tensor types, from its constants module alone: ``import gguf`` runs the package's
    ``__init__``, which imports its reader, writer and numpy (0.27 s of CPU in ``ingest stats``, which reads only
    this header). The module imports nothing of gguf's own; the whole package is used if it is imported already, or
    if loading the module alone fails."""
    import sys
    if "gguf" not in sys.modules:
        try:
            import importlib.util
            found = importlib.util.find_spec("gguf")
            spec = importlib.util.spec_from_file_location(
                "gguf.constants", Path(found.origin).parent / "constants.py") if found and found.origin else None
            constants = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(constants)
            return constants.GGML_QUANT_SIZES, constants.GGMLQuantizationType
        except Exception:  # noqa: BLE001 - another gguf layout: the package's import still works
            pass
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType
    return GGML_QUANT_SIZES, GGMLQuantizationType


def _value(f: BinaryIO, kind: int) -> Any:
    if kind in SCALARS:
        return _unpack(f, SCALARS[kind])[0]
    if kind == STRING:
        return _string(f)
    if kind == ARRAY:
        item, count = _unpack(f, "<IQ")
        if count > MAX_COUNT:
            raise ValueError("impossible array length")
        if item in SCALARS:
            f.seek(struct.calcsize(SCALARS[item]) * count, 1)
        elif item == STRING:
            _skip_strings(f, count)
        else:
            for _ in range(count):  # arrays of arrays: rare, walked the slow way
                _value(f, item)
        return None
    raise ValueError(f"unknown value type {kind}")


STRINGS_BLOCK = 1 << 20  # bytes of a string array read at a time
_LENGTH = struct.Struct("<Q")


def _skip_strings(f: BinaryIO, count: int) -> None:
    """Step over ``count`` strings (a u64 length, then its bytes), reading the file a block at a time: e5's
    250,037 tokens read with a read and a seek each took 0.2 s of CPU in every process that reads the header
    (``ingest stats``, ``ingest enqueue``, the worker, sift-mcp)."""
    block, at = b"", 0
    for _ in range(count):
        if at + 8 > len(block):
            block, at = block[at:] + f.read(STRINGS_BLOCK), 0
            if len(block) < 8:
                raise ValueError("the file ends inside its header")
        at += 8 + _LENGTH.unpack_from(block, at)[0]
        if at > len(block):  # a string longer than what is read: step over the rest of it in the file
            f.seek(at - len(block), 1)
            block, at = b"", 0
    f.seek(at - len(block), 1)  # back to the end of the array: what was read past it is the header's next key


def _string(f: BinaryIO) -> str:
    (length,) = _unpack(f, "<Q")
    if length > 1 << 30:
        raise ValueError("impossible string length")
    data = f.read(length)
    if len(data) != length:
        raise ValueError("the file ends inside its header")
    return data.decode("utf-8", "replace")


def _unpack(f: BinaryIO, fmt: str) -> tuple:
    size = struct.calcsize(fmt)
    data = f.read(size)
    if len(data) != size:
        raise ValueError("the file ends inside its header")
    return struct.unpack(fmt, data)
