"""The decoder's reading of notes without a BOM that are not UTF-8: legacy encodings read as written, damaged
UTF-8 and unknown bytes refused with what to do."""
from __future__ import annotations

import pytest

from ingest.decode import decode, sniff
from ingest.document import Skip
from search.query.text import other_scripts
from tests.conftest import need_data

WRITTEN = {
    "gb18030": "# 合同\n\n今天和曲美讨论了合同条款，付款方式改为分期。\n",
    "cp950": "# 資料庫設計\n\n這是一個關於資料庫的筆記，我們討論了索引。\n",
    "cp1252": "# Café\n\n“Crème brûlée” — déjà vu; Größe und Übermaß, 20 °C, 5 €\n",
}


@pytest.mark.parametrize("codec", WRITTEN)
def test_a_note_in_a_legacy_encoding_is_read_as_written(codec):
    assert sniff(WRITTEN[codec].encode(codec)).codec == codec
    assert decode(WRITTEN[codec].encode(codec)) == WRITTEN[codec]


@pytest.mark.parametrize("data, at", [
    ("合同条款，付款方式".encode() + b"\xff" + "改为分期\n".encode(), 27),  # UTF-8 with a stray byte
    (bytes(range(0x80, 0x100)) * 4, 0),  # no text in any encoding
    ("日本語のメモです。\n".encode("shift_jis"), 0),  # Shift-JIS: none of the three
], ids=["damaged-utf8", "no-text", "shift-jis"])
def test_damaged_utf8_and_unknown_bytes_are_refused_with_what_to_do(data, at):
    with pytest.raises(Skip) as refused:
        decode(data)
    assert str(refused.value).startswith(f"not UTF-8 text (byte {at}: ")
    assert str(refused.value).endswith("convert it to index it: iconv -f ENCODING -t UTF-8 FILE > NEW")


def test_a_legacy_note_undecodable_past_its_first_64_kib_names_the_encoding_and_byte():
    data = WRITTEN["gb18030"].encode("gb18030") * 3000 + b"\xff\n"
    with pytest.raises(Skip, match=rf"^undecodable GB18030 text \(byte {len(data) - 2}: "):
        decode(data)


def test_gb18030_and_big5_are_told_apart_on_real_chinese_text():
    """The two share their byte ranges, so each decodes the other's bytes without an error (as rare
    characters): 300 doctors' answers, written in GB18030 and, in Traditional characters, in Big5."""
    docs = sorted((need_data("zh-retrieval") / "docs").iterdir())[:300]
    for doc in docs:
        simplified = doc.read_text(encoding="utf-8")
        traditional = "".join((other_scripts(c) or [c])[0] for c in simplified)
        assert sniff(simplified.encode("gb18030")).codec == "gb18030", doc.name
        assert sniff(traditional.encode("cp950", "ignore")).codec == "cp950", doc.name


UTF16_TEXT = "# Tide log\r\n\r\nthe heron came back at 06:40\r\n付款方式改为分期。一\r\n"
UTF16_TEXTS = {"ascii": "# Tide log\n\nthe heron came back at 06:40\n" * 40,
               "russian": "Привет мир, это текст.\n" * 40, "hindi": "यह हिंदी पाठ है।\n" * 40,
               "korean": "한국어 텍스트는 공백으로 단어를 나눕니다.\n" * 40, "japanese": "これは日本語のテキストです。\n" * 40}


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("name", UTF16_TEXTS)
def test_utf16_without_a_bom_in_other_scripts(codec, name):
    """Russian or Hindi in UTF-16 is valid UTF-8 (bytes 04 30 ...): read as UTF-16 still, not as UTF-8 text with
    stray NULs (below)."""
    assert sniff(UTF16_TEXTS[name].encode(codec)).codec == codec


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_bom_is_read_as_written(codec):
    """Text saved as UTF-16 without a byte-order mark (some Windows tools and exports write it so) was skipped
    as 'binary file (a NUL byte at byte 1)': its ASCII characters each have a NUL byte. Read as written now, by
    the indexer and read_file alike (one sniff), Chinese included (一 is 00 4E in UTF-16 LE)."""
    data = UTF16_TEXT.encode(codec)
    encoding = sniff(data)
    assert (encoding.codec, encoding.bom, encoding.unit, encoding.name) == (codec, 0, 2, "utf-16")
    assert decode(data) == UTF16_TEXT.replace("\r\n", "\n")
    long = data * 200  # past the 8 KiB looked at first: a lone surrogate there
    with pytest.raises(Skip, match=rf"^undecodable utf-16 text \(byte {len(long)}: "):
        decode(long + "\ud800".encode(codec, "surrogatepass") + data)


CJK_ONLY = "一个人的时候，我们也要好好吃饭。　万一下雨，就在家里看书吧。"


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_bom_of_cjk_alone_is_read_as_written(codec, tmp_path):
    """UTF-16 without a BOM whose only NULs are the low bytes of U+XX00 characters (CJK with no ASCII: 一 is
    00 4E in UTF-16 LE, the ideographic space 00 30) was read as 'binary file (a NUL byte at byte 0)': its NULs
    fall on the side no ASCII character's do, and it holds no space or line break. Read as written now (one sniff
    for the indexer and read_file); bytes whose other side reads as such only by chance stay binary."""
    for text in (CJK_ONLY, CJK_ONLY * 200):
        assert sniff(text.encode(codec)).codec == codec
        assert decode(text.encode(codec)) == text
    ascii_other_way = "ABCDEFGH".encode("utf-16-le" if codec == "utf-16-be" else "utf-16-be")  # 䄀䈀䌀… in this order
    half_nuls = bytes(b for i in range(1, 256) for b in ((0, i) if codec == "utf-16-le" else (i, 0)))
    not_text = b"\x00\x01\x02 not text" * 10  # NULs at even places alone: 'Ā\u2002潮⁴整瑸' in UTF-16 LE
    for data in (ascii_other_way, half_nuls, not_text):
        with pytest.raises(Skip, match=r"^binary file"):
            decode(data)


@pytest.mark.parametrize("data, at", [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8, 8),  # an image
    ("# UTF-32\n\nno BOM\n".encode("utf-32-le"), 1),  # UTF-32 without a BOM: NUL code units as UTF-16
    (b"a\x00b\x00\x01\x00c\x00\n\x00", 1),  # UTF-16-like, but a control character in it
    (b"A\x00B\x00C\x00D\x00", 1),  # no line break or space: nothing says it is text
], ids=["png", "utf32", "control", "no-space"])
def test_bytes_with_nuls_that_are_not_utf16_text_stay_binary(data, at):
    with pytest.raises(Skip, match=rf"^binary file \(a NUL byte at byte {at}\)$"):
        decode(data)


def test_nuls_on_both_sides_of_the_byte_pairs_are_binary_not_utf16():
    """Bytes whose pairs read as UTF-16 text (no control character, a space among them), but whose NULs fall at
    even and odd places alike, as no UTF-16 text's do: binary (test_remembered's blob was read as UTF-16)."""
    data = "\x00\x01\x02 binary \x00\xff".encode() * 64
    with pytest.raises(Skip, match=r"^binary file \(a NUL byte at byte 0\)$"):
        decode(data)


@pytest.mark.parametrize("body", ["# notes\nthe heron came back\n", "# 笔记\n付款方式改为分期。\n"], ids=["ascii", "chinese"])
@pytest.mark.parametrize("pad", [b"", b"x"], ids=["even", "odd"])
def test_utf8_text_with_a_stray_nul_is_binary_not_utf16(body, pad):
    """A UTF-8 note with one NUL byte beside a line end read as UTF-16 without a BOM: its byte pairs made CJK and
    Hangul code units ('‣潮整ੳ…'), indexed as garbage, or failed as 'undecodable utf-16 text'. Binary, as before."""
    text = body.encode("utf-8") * 3
    data = text + pad + b"\n\x00" + text
    with pytest.raises(Skip, match=rf"^binary file \(a NUL byte at byte {data.index(0)}\)$"):
        decode(data)
