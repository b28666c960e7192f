"""The one text decoder: what the indexer reads and what read_file shows are decoded the same way.

A byte-order mark selects UTF-8, UTF-16 or UTF-32 (little or big endian);
without one, text is UTF-8, or, when its first 64 KiB are not UTF-8, the legacy
encoding they read as (``legacy``: GB18030 or Big5 for Chinese, told apart by
how many of the decoded characters are common ones, or Windows-1252 for
European text), so notes saved by an old editor are indexed as written. A NUL in
the first 8 KiB (after the BOM's decoding) means a binary file, unless those
bytes read as UTF-16 without a BOM (``_utf16``). Undecodable
bytes mean "not text". Both verdicts raise ``Skip`` with the reason, so the
indexer records it and read_file refuses with it; the indexer's reason for text
that is not UTF-8 and reads as no legacy encoding either gives the iconv command
that converts it.

``Encoding`` names an explicit codec (``utf-16-le``, never ``utf-16``), so any
character boundary of the file can be decoded on its own: read_file streams a
huge file from the middle with ``incremental(encoding)``. Line breaks are
``\\r\\n``, ``\\r`` or ``\\n`` for both (code units 13 and 10 in every one of
these encodings, never part of another character: GB18030's and Big5's second
bytes are 0x30 and above).
"""
from __future__ import annotations

import codecs
import functools
import re
import unicodedata
from dataclasses import dataclass

from ingest.document import Skip

HEAD = 8192  # bytes looked at for NULs
SAMPLE = 64 * 1024  # bytes looked at to tell UTF-8 from a legacy encoding (by the indexer and read_file alike)


@dataclass(frozen=True)
class Encoding:
    codec: str  # an explicit codec: utf-8, utf-16-le, utf-16-be, utf-32-le, utf-32-be, or a legacy one (LEGACY)
    bom: int  # bytes of byte-order mark before the text
    unit: int  # bytes per code unit: 1, 2 or 4

    @property
    def name(self) -> str:
        """utf-8, utf-16, utf-32, GB18030, Big5 or Windows-1252: what messages say."""
        return LEGACY.get(self.codec) or (self.codec[:6] if self.unit > 1 else "utf-8")

    @property
    def legacy(self) -> bool:
        return self.codec in LEGACY


# The legacy encodings a note without a BOM is read in when it is not UTF-8, by the names messages give them.
LEGACY = {"gb18030": "GB18030", "cp950": "Big5", "cp1252": "Windows-1252"}


UTF8 = Encoding("utf-8", 0, 1)
# UTF-32 first: its little-endian BOM begins with UTF-16's.
BOMS = ((codecs.BOM_UTF8, Encoding("utf-8", 3, 1)),
        (codecs.BOM_UTF32_LE, Encoding("utf-32-le", 4, 4)), (codecs.BOM_UTF32_BE, Encoding("utf-32-be", 4, 4)),
        (codecs.BOM_UTF16_LE, Encoding("utf-16-le", 2, 2)), (codecs.BOM_UTF16_BE, Encoding("utf-16-be", 2, 2)))


def sniff(head: bytes) -> Encoding:
    """The encoding of a file that begins with ``head`` (its first SAMPLE bytes, or all of a shorter file);
    raises Skip for a binary file."""
    for bom, encoding in BOMS:
        if head.startswith(bom):
            break
    else:
        if b"\x00" in head[:HEAD]:
            found = _utf16(head[:HEAD])
            if found is None:
                raise Skip(NOTHING_WRITTEN if not head[:HEAD].strip(b"\x00") else binary(head.index(b"\x00")))
            return found
        return UTF8 if _utf8(head) else legacy(head[:SAMPLE]) or UTF8
    text = incremental(encoding, errors="replace").decode(head[encoding.bom:HEAD])
    if "\x00" in text:  # binary bytes behind a BOM decode to text with NULs
        raise Skip(binary(encoding.bom + len(text[:text.index("\x00")].encode(encoding.codec, "replace"))))
    return encoding


def _utf16(head: bytes) -> Encoding | None:
    """UTF-16 without a byte-order mark (some Windows tools and exports write it so), when ``head`` (the first HEAD
    bytes, which hold a NUL) reads as such in one byte order: whole characters, no NUL or other control
    character but tabs and line ends, and a line break or space among them (in the other order those are
    U+0A00 and U+2000). Bytes of an image, an archive or UTF-32 give NUL or control code units: None. So does
    UTF-8 text with a stray NUL (valid UTF-8, with fewer bytes below 0x20 than a quarter of them): its byte pairs
    read as CJK or Hangul code units, and a NUL beside a line end or space made it 'UTF-16' text of garbage. UTF-16
    text that is valid UTF-8 is of characters below U+2000 (ASCII, Cyrillic, Devanagari ...: every other byte is
    under 0x20), as CJK's bytes are not. And a NUL of UTF-16 text is the high byte of an ASCII (or other
    U+00xx) character, at every other byte; one in four of them the other side (一 is 00 4E in UTF-16 LE) is
    allowed: bytes whose NULs fall on both sides are binary, whatever their pairs read as. Text of CJK alone (no
    ASCII, so no space or line break either) has its NULs all on that other side, each the low byte of a U+XX00
    character (一 U+4E00, 　 U+3000): read as UTF-16 when those are at most one in four of its characters,
    every character it decodes to is a visible one and most are CJK (``_cjk_text``), as no binary file's pairs
    read; it was refused as binary."""
    if (len(head) - len(head.translate(None, _LOW))) * 4 < len(head):
        try:
            codecs.getincrementaldecoder("utf-8")().decode(head)  # a character cut at the end allowed
            return None
        except UnicodeDecodeError:
            pass
    for codec, high in (("utf-16-le", 1), ("utf-16-be", 0)):
        # no ASCII: every NUL the low byte of a U+XX00 character, a few of them (ASCII read in the other order,
        # 'A\0B\0' as 䄀䈀, is all such characters)
        cjk_only = not head[high::2].count(0) and head[1 - high::2].count(0) * 4 <= len(head) // 2
        if head[1 - high::2].count(0) * 4 > head[high::2].count(0) and not cjk_only:
            continue  # text's NULs are its ASCII characters' high bytes; a binary file's fall either side
        try:
            text = incremental(Encoding(codec, 0, 2)).decode(head[:len(head) // 2 * 2])
        except UnicodeDecodeError:
            continue
        if _cjk_text(text) if cjk_only else (" " in text or "\n" in text) and not _CONTROL.search(text):
            return Encoding(codec, 0, 2)
    return None


# CJK text's characters: kana, bopomofo, Hangul, ideographs, and the punctuation written among them (the
# ideographic space and 、。「」, full-width forms, CJK compatibility forms).
_CJK = re.compile("[\u1100-\u11ff\u2e80-\u2fdf\u3000-\u303f\u3040-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
                  "\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")


def _cjk_text(text: str) -> bool:
    """Whether ``text`` (decoded UTF-16 without a space or line break) reads as CJK text: each character with
    a NUL byte (U+XX00) a CJK one, at least three in four of them CJK, and none a control, format, private-use,
    unassigned or surrogate code point ('\0\1\2 not text' read as 'Ā\u2002潮⁴整瑸' is not)."""
    return bool(text) and len(_CJK.findall(text)) * 4 >= len(text) * 3 and not any(
        (ord(c) & 0xff == 0 and not _CJK.match(c)) or unicodedata.category(c) in ("Cc", "Cf", "Co", "Cn", "Cs")
        for c in text)


_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f]")
_LOW = bytes(range(0x20))  # NUL, control characters, tab and line ends


def _utf8(sample: bytes) -> bool:
    """Whether ``sample`` is UTF-8 (a character cut at its end allowed), or nearly so (ten characters above ASCII
    for each undecodable byte): UTF-8 with a damaged byte is not read as a legacy encoding, whose characters its
    bytes would make up."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(sample[:SAMPLE])
        return True
    except UnicodeDecodeError:
        text = sample[:SAMPLE].decode("utf-8", "replace")
        return sum(1 for c in text if c > "\x7f" and c != "\ufffd") >= 10 * text.count("\ufffd")


def legacy(sample: bytes) -> Encoding | None:
    """The legacy encoding ``sample`` (bytes that are not UTF-8, no NULs) reads as, if one does plainly:
    Chinese in GB18030 or Big5 (every byte above ASCII half of a character, and more of the characters common
    ones than in the other: the two share their byte ranges, so each reads the other's text as rare characters),
    or European text in Windows-1252 (its bytes above ASCII alone between ASCII ones: accented letters, quotes
    and dashes). None when neither fits."""
    scores = {}
    for codec in ("gb18030", "cp950"):
        try:
            text = codecs.getincrementaldecoder(codec)().decode(sample)  # a character cut at the end is kept
        except UnicodeDecodeError:
            continue
        chinese = [c for c in text if "\u3400" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff"]
        marks = sum(1 for c in text if "\u3000" <= c <= "\u303f" or "\uff00" <= c <= "\uffef")  # ，。（）
        if chinese and (len(chinese) + marks) * 2 >= sum(1 for b in sample if b >= 0x80) * 0.9:
            scores[codec] = sum(1 for c in chinese if c in _common()) / len(chinese)
    best = max(scores, key=scores.get, default=None)
    if best is not None and scores[best] >= COMMON_SHARE:
        return Encoding(best, 0, 1)
    return Encoding("cp1252", 0, 1) if _european(sample) else None


# Of a Chinese text's characters, the share that must be common ones. On 1,000 zh-retrieval answers written in both:
# 0.60-0.98 (median 0.83) read in their own encoding, 0-0.40 (median 0.05 and 0.12) read in the other.
COMMON_SHARE = 0.2
# The most common Chinese characters, Simplified (their Traditional forms are added from search.query.text).
COMMON = ("的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能而子那得于着下自之年过发后作里用道行所"
          "然家种事成方多经么去法学如都同现当没动面起看定天分还进好小部其些主样理心她本前开但因只从想实日者意无力它与长把"
          "机十民第公此已工使情明性知全三又关点正业外将两高间由问很最重并物手应向头文体政美相见被利什二等产或新己制身果加"
          "西斯月话合回特代内信表化老给世位次度门任常先海通教儿原东声提立及比员解水名真论处走义各入几口认条平系气题活尔更"
          "别打女变四神总何电数安少报才结反受目太量再感建务做接必场件计管期市直德资命山金指克许统区保至队形社便空决治展马"
          "科司五基眼书非则听白却界达光放强即像难且权思王象完设式色路记南品住告类求据程北边死张该交规万取拉格望觉术领共确"
          "传师观清今切院让识候带导争运笑飞风步改收根干造言联持组每济车亲极林服快办议往元英士证近失转夫令准布始怎呢存未远"
          "叫台单影具罗字爱击流备兵连调深商算质团集百需价花党华城石级整府离况亚请技际约示复病息究线似官火断精满支视消越器"
          "容照须九增研写称企八功吗包片史委乎查轻易早曾除农找装广显吧阿李标谈吃图念六引历首医局突专费号尽另周较注语仅考落"
          "青随选列武红响虽推势参希古众构房半节土投某案黑维革划敌致陈律足态护七兴派孩验责营星够章音跟志底站严巴例防族供效"
          "续施留讲型料终答紧黄绝奇察母京段依批群项故按河米围江织害斗双境客纪采举杀攻父苏密低朝友诉止细愿千值仍男钱破网热"
          "助倒育属坐帝限船脸职速刻乐否刚威毛状率甚独球般普怕弹校苦创假久错承印晚兰试股拿脑预谁益阳若哪微尼继送急血惊伤素"
          "药适波夜省初喜卫源食险待述陆习置居劳财环排福纳欢雷警获模充负云停木游龙树疑层冷洲冲射略范竟句室异激汉村哈策演简"
          "卡罪判担州静退既衣您宗积余痛检差富灵协角占配征修皮挥胜降阶审沉坚善妈刘读啊超免压银买皇养伊怀执副乱抗犯追帮宣佛"
          "岁航优怪香著田铁控税左右份穿艺背阵草脚概恶块顿敢守酒岛托央户烈洋哥索胡款靠评版宝座释景顾弟登货互付伯慢欧换闻危"
          "忙核暗姐介坏讨丽良序升监临亮露永呼味野架域沙掉括舰鱼杂误湿")


@functools.cache
def _common() -> frozenset[str]:
    """COMMON and the Traditional forms of its characters."""
    from search.query.text import other_scripts
    return frozenset(COMMON) | frozenset("".join(form for c in COMMON for form in other_scripts(c)))


# What Windows-1252 text holds above ASCII besides letters: quotes, dashes, symbols of prices and measures.
_PUNCTUATION = frozenset("\u00a0“”‘’–—…€£¥°§©®™·•×÷«»¿¡¢±µ¶ªº¹²³¼½¾")


def _european(sample: bytes) -> bool:
    """Whether ``sample`` reads as Windows-1252 text: its bytes above ASCII letters or typographic marks, and
    mostly one at a time between ASCII bytes (Chinese in a legacy encoding comes in runs of pairs)."""
    try:
        text = sample.decode("cp1252")
    except UnicodeDecodeError:  # 0x81, 0x8d, 0x8f, 0x90, 0x9d: no character
        return False
    high = [c for c in text if c > "\x7f"]
    runs = len(re.findall(rb"[\x80-\xff]+", sample))
    fitting = sum(1 for c in high if c.isalpha() or c in _PUNCTUATION)
    return bool(high) and fitting >= 0.95 * len(high) and len(high) <= 1.5 * runs


# A file of NUL bytes alone is no binary file: its bytes were never written. A sync client downloading it (rclone's
# and others' sparse files), a placeholder of its size, a crash before its data reached the disk. Said as such: a
# note skipped as 'binary file (a NUL byte at byte 0)' looked damaged; its version indexed before stays searchable.
NOTHING_WRITTEN = "only NUL bytes where its text begins: not written yet (a download not finished, a sync placeholder?)"


def binary(at: int) -> str:
    """The verdict on a file with a NUL: where the first is, so a text note damaged by a crash (a run of NULs
    where its last write was lost) can be found and mended; 'binary file' alone said nothing of where."""
    return f"binary file (a NUL byte at byte {at:,})"


def incremental(encoding: Encoding, errors: str = "strict"):
    """A decoder fed piece by piece (a character cut between two reads is kept for the next)."""
    return codecs.getincrementaldecoder(encoding.codec)(errors)


def decode(data: bytes) -> str:
    """The text of a whole file, with '\\n' line ends (a UTF-16 file from Windows has '\\r\\n' too)."""
    encoding = sniff(data[:SAMPLE])
    try:
        text = data[encoding.bom:].decode(encoding.codec)
    except UnicodeDecodeError as exc:
        why = not_text(encoding, encoding.bom + exc.start, exc.reason)
        raise Skip(f"{why}: {legacy_hint()}" if encoding == UTF8 else why) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def head_text(data: bytes) -> str:
    """The text of a file's first bytes ``data`` decoded as the whole file would be (``sniff``), a character cut at
    their end left out: what tells a file's kind by its first lines (a chat export's) reads a GBK file's names as
    written, where UTF-8 with replacement made them marks; '' for a binary file's."""
    try:
        encoding = sniff(data[:SAMPLE])
    except Skip:
        return ""
    return incremental(encoding, errors="replace").decode(data[encoding.bom:])


def legacy_hint() -> str:
    """What to do with text that is not UTF-8 and does not read plainly as a legacy encoding either."""
    return ("Sift reads UTF-8 (and UTF-16/32 with a BOM, UTF-16 without one), and GB18030, Big5 or Windows-1252 "
            "text whose first 64 KiB read as such; if it is text in another encoding, convert it to index it: iconv -f "
            "ENCODING -t UTF-8 FILE > NEW")


def not_text(encoding: Encoding, at: int, reason: str) -> str:
    """The reason given for undecodable bytes at byte ``at`` of the file."""
    if encoding.bom or encoding.legacy or encoding.unit > 1:
        return f"undecodable {encoding.name} text (byte {at}: {reason})"
    return f"not UTF-8 text (byte {at}: {reason})"
