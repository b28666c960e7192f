"""The words that only make a query a question, which keyword search leaves out.

An assistant (or a person) often searches with a question: ``how do I edit the current command in the prompt?``,
``癫痫病发作与经期有关系吗？``. Its framing words (how, do, I; 怎么, 什么, 吗) say nothing about which passage is
meant, but BM25 weighs them as it weighs any word: notes that say how, do and I often ranked above the one about
what was asked (claude-code's ``Allow Edits From The Start`` first for that question, by keyword). ``content`` is
the query without them, for the keyword side only; meaning (the embedding) gets the question whole, and a query
of framing words alone is kept as written.

English framing words are left out only from a question: a query that ends with ``?``, or whose first word asks
(how, what, why …) or is an auxiliary (do, can, is …) followed by a word a question goes on with (``how to``, ``how
many``, ``what is``, ``can I``, ``is the``). A statement keeps them (SciFact's claims: ``… does not reduce …``), and
so do keyword queries that start with such a word (``do while loop``, ``where clause``). Chinese question words are
questions wherever they stand; the particles 吗, 呢, 啊, 呀 only where they end a run of Chinese (吗啡 is a drug).
Words the query quotes are what it asks about, whatever they are: ``what does "do" mean in Ruby?`` keeps ``do``
(it was searched as ``mean Ruby``, and the note about ``do`` was not found at all).
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

from search.query.text import CJK_RANGES, QUOTED, WORD, normalise, query_words

ASKING = frozenset("how what why when where which who whom whose".split())
AUXILIARY = frozenset("do does did can could should would is are was were am shall".split())
PERSONS = frozenset("i me my we us our you your".split())
FRAMING = ASKING | AUXILIARY | PERSONS
# English prepositions and conjunctions: a query's 'during' that no note writes says nothing of what is sought, and
# was named ('no passage contains 'during'') and even corrected; named only when quoted, as FRAMING
FUNCTION = frozenset("about above across after against along among around before behind below beneath beside "
                     "besides between beyond despite during except inside into near onto outside over past since "
                     "through throughout toward towards under underneath unlike until upon versus via within without "
                     "although because though unless whereas whether while".split())
# The commonest English words that say nothing of what is sought: a query's 'by' that no passage of a small collection
# writes was named as a missing word ('deploymnet by Robert Smith'); the spelling note names them only when quoted
STOPWORDS = frozenset("a an the by from of to in on at for with and or as".split())
GOES_ON = FRAMING | frozenset("to many much long often it they he she the a an this that these those there".split())

CHINESE = (  # longest first: 怎么办 before 怎么
    "为什么", "為什麼", "為甚麼", "爲什麼", "爲甚麼", "为甚么", "為什麽", "為甚麽", "怎么办", "怎麼辦", "怎麽辦",
    "怎么样", "怎麼樣", "怎麽樣", "是不是", "能不能", "可不可以", "有没有", "有沒有", "怎么", "怎麼", "怎麽",
    "怎样", "怎樣", "如何", "什么", "什麼", "什麽", "甚麼", "甚么", "为何", "為何", "爲何", "哪些", "哪个", "哪個",
    "哪里", "哪裡", "哪裏", "请问", "請問", "咋办", "咋辦", "咋样", "咋樣", "是否", "能否(?![认認])", "可否(?![认認])",
    "为啥", "為啥", "啥", "谁", "誰", "多少", "哪一?篇", "哪一?[条條]",
)  # Traditional in its variants too: 麽 beside 麼 (Hong Kong, and many input methods), 甚麼, 爲, 裏; patterns: 能否 and 可否
# (whether) but not in 不可否认 (undeniable) or 不能否认
PARTICLES = "吗嗎呢啊呀"
# A question word goes with the 是 beside it (什么是X, X是什么, X是怎么引起的) and the 有 before 什么 or 哪些
# (X有什么症状). Left behind alone, 是 (is) became a term of its own (是X, X是): 什么是JVM？ ranked a passage on blood
# pressure that says 这个是降压药物 second. Not the 有 or 是 that ends a word: 具有, 拥有, 含有 … (to have), 实事求是.
_OWN_HAVE = "具拥擁含享占佔持固特现現原"
_CHINESE = re.compile(f"(?:(?<![求])是|(?<![{_OWN_HAVE}])有(?=[什甚哪]))?(?:" + "|".join(CHINESE) + ")是?"
                      + f"|[{PARTICLES}](?![{CJK_RANGES}])")
# What a Chinese question says of the user's note rather than of its subject, as RECALLING below in English: 我记得有一篇
# 关于向量检索的笔记 ranked a weekly report saying 读了一篇关于向量检索的论文（见阅读笔记） first, above the note on
# 向量检索 itself; 有没有提到 Kubernetes 的笔记 named 提到 as held nowhere. Left out wherever they stand: I remember
# (我记得, 印象中), a note (有一篇, 那篇, 一条), about (关于, 有关 but not 有关系, 提到, 说到 …), a note or record the
# query ends with (…的笔记, …的记录), a speech verb before 什么 (说了什么, 讲过啥: what was said), and when it was
# written (上个月, 上周, 去年, 前几天, 那周, 最近, 之前, 三天前, 本周 …: no note says so of itself, 上个月 found a
# patient's 上个月 突然…), with the day of the week after it (上周三: last Wednesday; left without it, its 三 made the
# pair 三去 of 上周三去医院) and the 的 after it (上周的预算: its 的 made the pair 的预); Japanese 先週, 先月, 昨年 too.
_RECALLED_ZH = re.compile(
    "我?(?:好像|似乎|依稀|隐约|隱約|大概)?(?:记得|記得)|印象[中里裡]"
    "|(?:有|写过|寫過|记过|記過|看过|看過|读过|讀過)?(?:一|那|这|這)一?[篇条條则則份](?:讲|講|说|說|写|寫)?"
    "|关于|關於|有[关關](?=[\u3400-\u9fff])(?![系係的])|(?:提|说|說|谈|談|讲|講)(?:到|过|過)|(?:写|寫)(?:过|過)|提及"
    "|(?:说|說|讲|講|写|寫|聊|谈|談|记|記|提)(?:了|过|過)?(?=什么|什麼|什麽|甚麼|甚么|啥)"
    "|的(?:笔记|筆記|记录|記錄|纪录|紀錄)(?=[吗嗎呢吧]?[\\s？?。!！]*$)"
    "|(?:上个?月|上個月|(?:上一?[周週]|上星期|上礼拜|上禮拜)(?:[一二三四五六日天末](?![十百千万萬]))?|去年|前年|前几天|前幾天"
    "|前阵子|前陣子|前段时间|前段時間|那一?[周週天]|那[个個]月|最近(?![邻鄰])|之前|以前|上次"
    "|本[周週月]|这[周週]|這[周週]|这个月|這個月"
    # a count begun where its run of numerals begins: tried from each of them, a query of 10,000 digits took 2 s a read
    "|(?<![一两兩二三四五六七八九十几幾\\d])[一两兩二三四五六七八九十几幾\\d]+[个個]?(?:天|[周週]|星期|礼拜|禮拜|月|年)前"
    "|先週(?:の[月火水木金土日]曜日?)?|先月|昨年)[的の]?")  # not the 最近 of 最近邻 (nearest neighbour)
# Japanese question words where they end a run of Japanese, with the particle before them and the ending after them
# (キックオフはいつ, 隠し味は何ですか, 保存先はどこ?: the note is about キックオフ, 隠し味, 保存先), and とは (X とは: what is
# X); inside a run they are words of their own (いつも, どこか, 幾何). The spelling note named はいつ as held nowhere.
# とは not after こ, ひ, あ, も, そ: '大事なことは' lost the と of こと and was searched as 大事なこ.
# 何 and 誰 only after a particle or alone, as Chinese writes them at a word's end too (任何 any, 幾何, 如何 left out above)
JAPANESE = ("どうやって", "どうすれば", "どうしたら", "どうして", "なぜ", "いつ", "どこ", "どれ", "どんな", "だれ", "なに", "なん",
            "(?<![こひあもそ])とは(?:何|なに|なん)?")  # not the は of こと, ひと, あと, もと, そと; とは何ですか whole
_JAPANESE = re.compile("(?:[はがもをで]?(?:" + "|".join(JAPANESE) + ")|(?:[はがもをで]|(?<![\u3400-\u9fff\uf900-\ufaff]))[何誰])"
                       "(?:ですか|でしょうか|ますか|か)?" + f"(?![{CJK_RANGES}])")
# Korean question words, a word of their own (Korean writes spaces between words), with the particle or ending they
# take (어디에, 무엇을, 뭐야): 백업은 어디에 보관해 looked up 어디 and 에 as words of a note.
KOREAN = ("어떻게", "언제", "어디", "어디서", "무엇", "뭐", "뭘", "왜", "누가", "누구", "어느", "어떤", "얼마나", "몇")
_KOREAN = re.compile("(?<![\uac00-\ud7a3])(?:" + "|".join(KOREAN) + ")(?:에서|에|을|를|은|는|이|가|야|지|죠|요|나|든지)?"
                     "(?![\uac00-\ud7a3])")


# A request for the user's own notes ('my notes on @vaswani2017attention', 'notes I took on BERT', 'notes by me',
# 'which notes do I have about vim', a question for all that it ends with no '?'): its words say
# where to look, not what about (reordering.own_notes_first); looked up, 'notes' was named by the spelling note, "did you
# mean 'nothes'?", in a folder no passage of which says it, and 'my' ranked a note saying 'My take'
OWN_NOTES = re.compile(r"(?:\b(?:my|our)\s+(?:own\s+)?notes?"
                       r"|\bnotes?\s+(?:written\s+)?by\s+(?:me|myself|us)\b"
                       r"|\bnotes?\s+(?:(?:do|did)\s+)?(?:I|we)\s+(?:took|take|made|make|wrote|write|have|keep|kept))"
                       r"(?:\s+(?:on|about|for|of|from)\b)?\b", re.IGNORECASE)


# A question for the files that cite or mention something ('which notes cite geobase2004nhn', 'papers that mention
# BERT', 'notes citing @smith2020', 'any notes about …' is RECALLING's): its words say which files are wanted, not
# what about. Looked up, 'cite' was named by the spelling note, "did you mean 'city'?", in notes that write only the
# citekey, and 'notes' ranked a passage saying 'notes' first. A verb alone stays ('cite this paper', 'mention bot').
_FILES = r"(?:notes?|papers?|files?|pages?|documents?|docs|articles?|posts?|entries|entry|passages?)"
_CITE = (r"(?:cite[sd]?|mention(?:s|ed)?|reference[sd]?|discuss(?:es|ed)?|quote[sd]?"
         r"|(?:refer(?:s|red)?|link(?:s|ed)?|point(?:s|ed)?)\s+to|talk(?:s|ed)?\s+about)")
_CITING = r"(?:citing|mentioning|referencing|discussing|quoting|(?:referring|linking|pointing)\s+to|talking\s+about)"
_NOT_PLAIN = GOES_ON | FUNCTION | frozenset(
    "of in on for from by with and or to at as any some all every each no my our your their his her its".split())
# The same question naming no kind of file ('what cites smith2020?', 'who mentions BERT', 'where is smith2020
# cited?'): searched as 'cites smith2020' and 'smith2020 cited', the key then led no more. Read so only where what it
# asks about is what files cite: a citekey ('smith2020', '@smith2020'), a name or a title (a capital); 'what quotes
# did Einstein say', 'who mentions kubernetes', 'what links to the page' keep their words.
_CITED_THING = (rf"(?!(?:{'|'.join(sorted(_NOT_PLAIN))})\b)"
                r"(?:@[\w:.+/-]+|[^\W\d_][\w:.+/-]*\d[\w:.+/-]*|(?-i:[A-Z])[\w'’.+/-]*|\ue000\d+\ue001)(?![\w@])")
# a quoted title ('where is "Attention Is All You Need" cited?'), as ``_pieces`` stands in for it while CITING reads
# the query whole: read apart, the quote cut the question in two and neither half was read as citing
_QUOTE_MARK = re.compile("\ue000(\\d+)\ue001")
# what a question asks to be cited, as ``_citing_out`` marks it: its words are kept as a quote's are ('where is
# Attention Is All You Need cited': its 'Is' and 'You' were left out as framing)
_KEPT = re.compile("\ue000\\d+\ue001|\ue002[^\ue003]*\ue003")
_MARKS = re.compile("[\ue000-\ue003]")
_CITED = r"(?:cited|mentioned|referenced|discussed|quoted|(?:referred|linked|pointed)\s+to|talked\s+about)"
CITING = re.compile(
    rf"\b(?:which|what)\s+(?:of\s+(?:my|our|the)\s+)?{_FILES}\s+(?:(?:that|which)\s+)?{_CITE}\b"
    rf"|\b(?:(?:the|any|all)\s+)?{_FILES}\s+(?:(?:that|which)\s+{_CITE}|{_CITING})\b"
    rf"|\b(?:what|who)\s+{_CITE}(?=\s+{_CITED_THING})"
    rf"|\bwhere\s+(?:is|are|was|were|has|have|had)\s+(?P<cited>{_CITED_THING}(?:\s+[^\W_][\w'’:.+/-]*){{0,8}}?)"
    rf"\s+(?:(?:been|also|ever|first)\s+)*{_CITED}\b", re.IGNORECASE)
# A verb of CITING that is a noun too, and the plain word after it in small letters: 'which notes reference counting'
# asks for the notes about reference counting, and was searched as 'counting' (a note on counting sheep first). Read
# so only where some passage holds the two words side by side (``phrases_known``); a citekey, a name, a path or 'the'
# after the verb is what the files cite ('which notes reference geobase2004nhn', 'which notes mention BERT').
_NOUN_TOO = re.compile(r"(?i)\b(?:reference|quote|mention)s?$")
_PLAIN = re.compile(r"\s+([a-z]+(?:-[a-z]+)*)(?![\w@/:'’-]|\.\w)")

# Whether a passage of the index holds some words side by side, for the search under way (``phrases_known``, set by
# search.query.engine); outside a search (None) a verb of CITING is read as one.
_HELD_PHRASE: ContextVar[Callable[[str], bool] | None] = ContextVar("held_phrase", default=None)


@contextmanager
def phrases_known(held: Callable[[str], bool]) -> Iterator[None]:
    """Within it, 'which notes reference counting' keeps 'reference' where ``held('reference counting')``."""
    token = _HELD_PHRASE.set(held)
    try:
        yield
    finally:
        _HELD_PHRASE.reset(token)


class KnownPhrases:
    """Whether a published passage holds words side by side (``phrases_known``), for one search: asked of the
    catalog's connection ``read()`` gives (None before the search has one: no phrase), each answer kept."""

    def __init__(self, read: Callable[[], object]):
        self._read = read
        self._answers: dict[str, bool] = {}

    def __call__(self, words: str) -> bool:
        read = self._read()
        if read is None:
            return False
        if words not in self._answers:
            from search.index import keyword_reads
            self._answers[words] = keyword_reads.phrase_published(read.conn, '"' + words.replace('"', '""') + '"')
        return self._answers[words]


def _citing_out(text: str) -> str:
    """``text`` without CITING's framing, but for a verb that is the first word of a phrase the index holds
    (``_NOUN_TOO``: 'reference counting')."""
    def out(match: re.Match) -> str:
        verb = _NOUN_TOO.search(match.group(0))
        after = _PLAIN.match(text, match.end())
        held = _HELD_PHRASE.get()
        if match["cited"]:  # 'where is smith2020 cited': the key stays, whatever its words (_KEPT)
            return f" \ue002{match['cited']}\ue003 "
        if verb and after and held is not None and after.group(1) not in _NOT_PLAIN \
                and held(f"{verb.group(0)} {after.group(1)}"):
            return f" {verb.group(0)}"
        return " "
    return CITING.sub(out, text)

# What an assistant's question says of the user's note rather than of its subject: 'what did I decide about …', 'I
# remember a note comparing …', 'the note about …', 'the approach I noted down', 'where did I write down …'. Each of
# its words is rare in notes (note, remember, decide, wrote), so BM25 weighed it as much as the subject's words, and a
# note that says 'I remember' or 'we decided' ranked above the one asked about. Left out of keyword search wherever
# it stands, in a question or not. Verbs a how-to question asks about stay: 'how do I write an object to a JSON
# file' keeps write (only a past tense after I, or a verb with 'about', 'on' or 'down' after it, is recalling).
_ABOUT = r"(?:\s+(?:down|up))?(?:\s+(?:about|on|regarding|concerning))?\b"
_NOTE = r"(?:note|notes|til|tils|entry|entries|write-?up|snippet|page|post)"
_YEAR = r"(?:\s+(?:in|during|back\s+in)\s+(?:(?:early|late|mid)\s+)?(?:19|20)\d\d)?"  # 'did I learn in 2023 about'
# verbs only a recollection asks with ('what did I decide'); those a how-to asks with too ('how did I save the file')
# recall only with 'about', 'on' or 'down' after them
_RECALLED = (r"note|noted|jot|jotted|document|documented|decide|decided|conclude|concluded|learn|learned|learnt"
             r"|settle|settled|figure\s+out|figured\s+out|find\s+out|found\s+out|end\s+up|ended\s+up")
_WRITTEN = r"write|written|wrote|save|saved|record|recorded|keep|kept|put|log|logged|say|said|read"
RECALLING = re.compile(
    r"\b(?:i|we)\s+(?:(?:vaguely|once|definitely|think\s+(?:i|we))\s+)?(?:remember|recall)(?:ed)?"
    r"(?:\s+(?:reading|writing|seeing|saving|making|having|noting))?(?:\s+(?:a|an|the|some|that|this|one))?"
    rf"(?:\s+{_NOTE})?(?:\s+(?:about|on|regarding|concerning|where|that|which|saying))?\b"
    rf"|\b(?:did|have|had)\s+(?:i|we)\s+(?:ever\s+|already\s+|once\s+)?(?:{_RECALLED}){_YEAR}{_ABOUT}"
    rf"|\b(?:did|do|have|had)\s+(?:i|we)\s+(?:ever\s+|already\s+|once\s+)?(?:{_WRITTEN}){_YEAR}"
    r"(?:\s+down|(?:\s+(?:down|up))?\s+(?:about|on|regarding|concerning))\b"
    rf"|\b(?:i|we)\s+(?:wrote|noted|jotted|documented|decided|concluded|learned|learnt|settled|figured\s+out"
    rf"|found\s+out|ended\s+up){_ABOUT}"  # 'the posts I wrote during 2024': the year is what they are about
    r"|\b(?:did|does)\s+(?:it|that|this|the\s+note)\s+(?:say|conclude|recommend|suggest|decide)\b"
    r"|\b(?<!release\s)(?<!patch\s)(?:any\s+|all\s+)?(?:notes|entries|posts)\s+(?:about|regarding|concerning)\b"
    rf"|\b(?:a|the|my|that|this|some)\s+{_NOTE}\s+(?:about|on|regarding|concerning|where|comparing"
    r"|that\s+(?:says|said|explains|explained|covers|covered|describes|described|shows|showed|compares|compared))\b",
    re.IGNORECASE)
# What a question asks of what was said by someone it names by a role, not a name (a lecture's transcript, a meeting's
# notes): 'what did the lecturer say about eigenvalues', 'did our tutor mention anything on the exam'. Its 'lecturer',
# 'say' and 'about' were searched as the subject; the transcript never says them, and a diary note 'about' ranked
# first. A speaker named by a name is BY_SOMEONE's, and keeps the name.
SAID_BY_ROLE = re.compile(
    r"\b(?:did|has|had)\s+(?:the|a|an|our|my|your|his|her|their|that|this)\s+(?-i:[a-z][\w'’-]*\s+){1,2}?"
    r"(?:say|said|mention|mentioned|explain|explained|talk|talked|speak|spoke|tell|told)"
    r"(?:\s+(?:us|me|them))?(?:\s+anything)?(?:\s+(?:about|on|regarding|concerning|of))?\b", re.IGNORECASE)
# What a question says of someone else's writing, the author's name kept: 'what did Anna write about the budget', 'has
# Mei Lee written about', 'which notes did Ben write in March', 'papers by John Smith', 'the paper Smith wrote in 2019'.
# The author is found by the name (a note's front matter author, a PDF's metadata one: the title column holds it), but
# 'write', 'notes' and 'by' were looked up as words of the subject: a note saying 'I write every morning … notes by
# hand' ranked above Anna's note on the budget. A name is one to four capitalised words ('I' is the user: RECALLING),
# with the lower-case particles of a name between them ('Ursula von der Leyen', 'Jan de Vries'); after 'by' or
# between 'did' and a verb of writing, one to three words in any case ('notes by anna berg', 'what did anna write'),
# none of them a word a question goes on with (the, it, we, about …): search.query.authors tells whether such words
# name a known author.
_PARTICLE = r"(?:von|van|der|den|de|del|della|di|da|du|la|le|ter|ten|dos|das|zu|bin|ibn|al|y)"
_CAPITAL = r"(?!I\b)[A-Z][\w'’.-]*"
_NAME = rf"(?-i:{_CAPITAL}(?:\s+(?:{_PARTICLE}\s+){{0,2}}[A-Z][\w'’.-]*){{0,3}})"
_NOT_NAME = (r"(?:the|a|an|it|its|that|this|these|those|there|i|we|you|he|she|they|me|us|them|my|our|your|his|her"
             r"|their|someone|anyone|everyone|somebody|anybody|people|about|on|in|from|during|since|for|of|to|and|or"
             r"|with|at|by|as|regarding|concerning|me|myself|hand|date|name|year|month|day|week|default|\d\w*)")
_WORD = rf"(?!{_NOT_NAME}\b)[^\W\d_][\w'’.-]*"
# a name written in Chinese, with its title (王医生, 欧阳老师): 'what did 王医生 say about 空腹' named 'say' as held by no
# passage, the name read as no writer's, for it has no capital
_HAN_CHARS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN_NAME = f"[{_HAN_CHARS}]{{1,5}}"
# a Chinese name glued to the English around it, as a Chinese input method leaves it ('what did王伟say about …'): its
# spaces were needed, and the question was searched as the one word 'did王伟say'
_HAN_BEFORE = rf"(?:\s+|(?=[{_HAN_CHARS}]))"
_HAN_AFTER = rf"(?:\s+|(?<=[{_HAN_CHARS}]))"
_ANY_NAME = rf"(?:{_NAME}|{_HAN_NAME}|(?=(?-i:[a-z])){_WORD}(?:\s+(?:{_PARTICLE}\s+){{0,2}}{_WORD}){{0,2}})"
_BY_OTHERS = (r"write|written|wrote|say|said|note|noted|jot|jotted|document|documented|decide|decided|conclude"
              r"|concluded|publish|published|post|posted|share|shared")
BY_SOMEONE = re.compile(
    rf"\b(?:(?:which|what)\s+)?(?:(?:notes?|papers?|posts?|articles?)\s+)?(?:did|has|have|had){_HAN_BEFORE}"
    rf"(?P<a>{_ANY_NAME}){_HAN_AFTER}(?:ever\s+|already\s+)?(?:{_BY_OTHERS})(?:\s+(?:down|up))?"
    r"(?P<when>\s+(?:in|during|back\s+in)\s+[^\W\d_]+(?:\s+\d{4})?|\s+in\s+\d{4})?"  # 'in March', kept
    rf"(?:\s+(?:about|on|regarding|concerning))?(?:\b|(?=[{_HAN_CHARS}]))"
    rf"|\b(?P<b>{_NAME}|{_HAN_NAME}){_HAN_AFTER}(?:wrote|noted|jotted|(?:has|had)\s+(?:written|noted))"  # not: Articles published in
    r"(?:\s+(?:down|up))?(?:\s+(?:about|on|regarding|concerning))?\b"
    r"|\b(?:(?:the|a|any|all|some)\s+)?(?:notes?|papers?|posts?|articles?|pages?|entries|entry|anything|everything"
    rf"|something|stuff|things)\s+(?:written\s+|authored\s+|posted\s+)?by{_HAN_BEFORE}(?P<c>{_ANY_NAME})"
    r"(?:\s+(?:about|on|regarding|concerning)\b)?"
    # 'deployment by Robert Smith': after any word, a capitalised name the index knows as a writer (``_a_writer``)
    rf"|\bby\s+(?P<d>{_NAME})(?![\w'’.-])", re.IGNORECASE)

# The same in Chinese: 王建国发的邮件 (mail sent by 王建国), 王建国写的笔记 (notes written by), 王医生说的 (what 王医生
# said), 李总发给我的邮件 (mail he sent me): a name, a verb of writing or saying, 的, and the kind of writing; 邮件 was
# looked up as a word of the subject ("no passage contains '邮件'") and the name read as no writer. The name is the
# Chinese just before the verb, read from its end (``writers``: 帮我找王医生 holds 王医生); a kind of writing the query
# ends with after the subject goes too (王建国发的关于预算的邮件).
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_ZH_KIND = ("(?:电子邮件|電子郵件|邮件|郵件|电邮|電郵|信件|信(?!息)|笔记|筆記|文章|文档|文檔|消息|短信|帖子|话|話|内容|內容|东西|東西"
            "|记录|記錄|报告|報告)")
# A verb that ends a word is no verb of the writer's: 开发的 (developed), 引发的 (caused by), 复发的 (relapsed), 小说的
# (a novel's), 笔记的, 书记的 (a secretary's), 编写的, 演讲的, 前提的; but after a title that ends with such a word's
# first character it is the titled person's (王医生发的邮件, 李先生发的, 张秘书写的, 王同学说的: read as 生发, 书写, 学说)
_ZH_TITLED = "(?<=医生|醫生|先生|秘书|秘書|同学|同學)(?:发|發|写|寫|说|說|记|記)"
_ZH_SAID = (f"(?:{_ZH_TITLED}|发送|發送|转发|轉發|回复|回覆"
            "|(?<![开開研出引激触觸爆突散批颁頒揭分下印收复復诱誘并併蒸启啟沙头頭告打生进進])(?:发|發)|寄|(?<![编編书書改缩縮描抄填大小撰速特听聽手])(?:写|寫)"
            "|(?<![小传傳据據听聽解学學演虽雖再游遊胡])(?:说|說)|(?<![演开開主宣])(?:讲|講)"
            "|(?<![日笔筆登标標忘牢印惦速杂雜游遊传傳札书書])(?:记|記)|(?<![前大手])提)")
NAME_MOST = 5  # Chinese characters of a name read before a verb, its title with it (欧阳老师, 王总经理)
# The name is read as at most NAME_MOST characters before the verb (all ``_names_zh`` reads of it): a run of Chinese
# read whole, from each of its characters to its end, took time quadratic in its length where no verb followed (a
# query of 3,000 characters with no punctuation and none of the verbs: 11 s, 10,000: 97 s)
BY_SOMEONE_ZH = re.compile(
    f"(?P<z>[{_HAN}]{{1,{NAME_MOST}}}?)(?:给|給|跟|对|對)?(?:我|我们|我們|大家)?{_ZH_SAID}(?:了|过|過)?"
    "(?:(?:给|給)(?:我们|我們|我|大家|你))?的" + f"{_ZH_KIND}?")
_ZH_KIND_LAST = re.compile(f"的{_ZH_KIND}(?=[吗嗎呢吧]?[\\s？?。!！]*$)")
# the kind of writing ending the query straight after its subject (王建国发的预算邮件: mail about the budget), as 'budget
# mail' is; only a kind of two characters or more that names writing alone (not 话, 信, 内容: 电话, 微信, 工作内容)
_ZH_KIND_ENDING = re.compile(f"(?<=[{_HAN}])\\s*(?:电子邮件|電子郵件|邮件|郵件|电邮|電郵|信件|笔记|筆記|文章|文档|文檔|短信|帖子"
                             "|记录|記錄|报告|報告)(?=[吗嗎呢吧]?[\\s？?。!！]*$)")


def writers(query: str) -> list[str]:
    """The names a question gives as its writer's (BY_SOMEONE: 'what did Ben write', 'notes by anna berg'), each
    with its shorter starts after it, longest first ('anna berg budget', 'anna berg', 'anna'): a name in small
    letters may run into the subject's words."""
    found = []
    for match in BY_SOMEONE.finditer(WHEN_WRITTEN.sub(" ", query)):
        if match["d"] and not _a_writer(match):  # 'sorted by Name': no writer the index knows
            continue
        found += _starts(match)
    for match in BY_SOMEONE_ZH.finditer(query):
        found += _names_zh(match["z"])
    return list(dict.fromkeys(found))


def _names_zh(run: str) -> list[str]:
    """The names the Chinese before a verb of writing may end with (BY_SOMEONE_ZH), longest first: 帮我找王医生 gives
    我找王医生 … 王医生, 医生; a surname alone where it is all the Chinese before the verb (王说的: the one character
    was no writer, and 王说的 was searched as a word no passage holds), not the last character of a longer run (论文说的
    is no 文's)."""
    if len(run) == 1:
        from search.query import chinese_names
        return [run] if run in chinese_names.SURNAMES else []
    return [run[-n:] for n in range(min(len(run), NAME_MOST), 1, -1)]


# Whether the index knows a name as a writer (a file's recorded author, a mail's sender), for the search under way
# (``writers_known``, set by search.query.engine): 'Did Docker publish a fix' was searched as 'Docker a fix' and
# 'did Kubernetes say anything about pods' lost 'say', a product read as a writer. Outside a search (None) there is
# no index to ask, and a name before a verb of writing is read as its writer.
_KNOWN_WRITER: ContextVar[Callable[[str], bool] | None] = ContextVar("known_writer", default=None)


@contextmanager
def writers_known(known: Callable[[str], bool]) -> Iterator[None]:
    """Within it, a name before a verb of writing ('did Docker publish', 'Ben wrote') is a writer only if
    ``known`` says the index holds an author or sender so named; otherwise the verb is a word of the subject."""
    token = _KNOWN_WRITER.set(known)
    try:
        yield
    finally:
        _KNOWN_WRITER.reset(token)


def known_writers() -> Callable[[str], bool] | None:
    """The search's ``writers_known`` (search.query.authors.KnownWriters); None outside a search."""
    return _KNOWN_WRITER.get()


def _a_writer(match: re.Match) -> bool:
    """Whether BY_SOMEONE's ``match`` names a writer: by 'notes by …' a capitalised name always (the framing says it
    is one), one in small letters only where the index knows it ('posts by category about python': 'category' is no
    writer, and it was searched as 'category python'); before a verb, a name the index knows (``writers_known``); any
    name outside a search."""
    known = _KNOWN_WRITER.get()
    if match["d"]:  # 'by Robert Smith' after any word ('sorted by Name'): only a writer the index knows
        if known is None:
            return False
    elif known is None or match["c"] and not match["c"][:1].islower():
        return True
    return any(known(name) for name in _starts(match))


def _named(match: re.Match) -> str:
    """The name BY_SOMEONE's ``match`` gives as the writer's."""
    return match["a"] or match["b"] or match["c"] or match["d"]


def _starts(match: re.Match) -> list[str]:
    """The name BY_SOMEONE's ``match`` gives and its shorter starts, longest first ('anna berg budget', 'anna berg',
    'anna'), but for a first word that is English before it is a surname (``_english_first``)."""
    words = _named(match).split()
    return [" ".join(words[:n]) for n in range(len(words), 0, -1) if n > 1 or not _english_first(match)]


def _english_first(match: re.Match) -> bool:
    """Whether the first word of the name BY_SOMEONE's ``match`` gives is an English word, not a Chinese surname alone
    in pinyin (search.query.chinese_names.families): a word of English's list (english_words.known) written in small
    letters, or the query's first word, where its capital says nothing ('what did ma write about the budget', 'notes
    by lin', 'He wrote about the budget' were read as 马, 林 and 何, anyone so surnamed put first). With its capital
    inside the question it is the surname ('what did Ma write', 'notes by Lin'), and one no English word ('wang',
    'zhang') is read in small letters too."""
    group = next(g for g in "abcd" if match[g])
    word = match[group].split()[0]
    if not word.isascii() or not word.isalpha():
        return False
    from search.query import chinese_names, english_words, pinyin
    before = match.string[:match.start(group)].rstrip()
    if not (word[0].islower() or not before or before.endswith((".", "!", "?", ":", ";"))):
        return False
    # one syllable first, told by its letters: pypinyin's tables and the English list are read only for such a word
    return len(pinyin.syllables(word.lower()) or ()) == 1 and bool(chinese_names.families(word)) \
        and english_words.known(word)


def _by_someone(text: str) -> str:
    """``text`` with BY_SOMEONE's framing left out, the name it holds kept; a verb after a name that is no writer
    (``_a_writer``) kept as well."""
    return BY_SOMEONE.sub(lambda m: f" {_named(m)} {m['when'] or ''} " if _a_writer(m)
                          else m.group(0), text)


def _by_someone_zh(text: str) -> str:
    """``text`` with BY_SOMEONE_ZH's framing left out, the name kept, and a kind of writing the text ends with (before
    _RECALLED_ZH, which leaves out a 的笔记 the query ends with and would leave 王建国写的笔记's 写); in a search only
    where the name is a writer the index knows (``writers_known``: 高血压引起的, 网上说的 keep their words)."""
    said = []

    def out(match: re.Match) -> str:
        known = _KNOWN_WRITER.get()
        if known is not None and not any(known(name) for name in _names_zh(match["z"])):
            return match.group(0)
        said.append(match)
        return f"{match['z']} "
    text = BY_SOMEONE_ZH.sub(out, text)
    return _ZH_KIND_ENDING.sub(" ", _ZH_KIND_LAST.sub(" ", text)) if said else text


# A contraction of a framing word: 'what's', 'I'm', 'I've' were the words 's', 'm', 've' to keyword search; the
# framing word is kept whole (left out as such). A negation stays as typed ('shouldn't': the index holds shouldn, t).
_CONTRACTED = re.compile(r"\b([^\W\d_]+)['\u2019](s|m|ve|d|ll|re)\b", re.IGNORECASE)
# When the user wrote it, as an assistant's question says it ('last spring', 'earlier this year', 'a few weeks ago',
# 'back in the summer'): no note says so of itself, and 'spring', 'year', 'ago' were looked up as words of its subject.
# A date or a year stays (a note may be about 2024: 'every TIL I wrote during 2024'), and so do 'the last day',
# 'recently' and 'yesterday' alone ('the most recently committed branches', 'git log since yesterday').
_SEASON = r"(?:spring|summer|autumn|fall|winter)"
_PERIOD = rf"(?:{_SEASON}|year|month|week|weekend|quarter|semester|term)"
# A weekday said as when ('last Tuesday', 'this past Friday', 'Tuesday last week'), and the same periods in German,
# French and Spanish ('letzte Woche', 'letzten Dienstag', 'vor zwei Wochen', 'mardi dernier', 'la semaine dernière',
# 'el martes pasado', 'hace unos días'), as date_hints reads them for the date arguments: 'notes from last Tuesday
# about the budget' ranked a note saying 'last Tuesday' above the one about the budget. A weekday alone stays ('the
# Tuesday standup'), and so does a numbered week ('KW 12', 'week 10'): a weekly note is headed by it.
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_WEEKDAY_DE = r"(?:montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)"
_WEEKDAY_FR = r"(?:lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)"
_WEEKDAY_ES = r"(?:lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo)"
_FEW = r"(?:\d+|a|an|one|two|three|four|few|a\s+few|a\s+couple(?:\s+of)?|some|several)"
_ELSEWHERE = (  # German, French, Spanish
    rf"(?:letzte[nrs]?|vergangene[nrs]?|diese[nrs]?)\s+(?:woche|monat|jahr|{_WEEKDAY_DE})"
    r"|vor\s+(?:\d+|einer|einem|zwei|drei|ein\s+paar|einigen|wenigen)"
    r"\s+(?:tag(?:en)?|wochen?|monat(?:en)?|jahr(?:en)?)"
    rf"|(?:la\s+semaine|le\s+mois|l['’]ann[ée]e|{_WEEKDAY_FR})\s+derni[eè]re?|cette\s+(?:semaine|ann[ée]e)|ce\s+mois-ci"
    r"|il\s+y\s+a\s+(?:\d+|un|une|deux|trois|quelques)\s+(?:jours?|semaines?|mois|ans?)"
    rf"|(?:la\s+semana|el\s+mes|el\s+a[ñn]o|el\s+{_WEEKDAY_ES})\s+pasad[oa]|esta\s+semana|este\s+(?:mes|a[ñn]o)"
    r"|hace\s+(?:\d+|un|una|dos|tres|unos|unas|algunos|algunas|pocos|pocas)"
    r"\s+(?:d[ií]as?|semanas?|mes(?:es)?|a[ñn]os?)")
WHEN_WRITTEN = re.compile(
    r"\b(?:(?:from|on|in|during|over|since|of|von|seit|aus|de|depuis|desde|del)\s+)?(?:"
    rf"(?:back\s+|earlier\s+|sometime\s+)?(?:last|this(?:\s+past)?|earlier\s+this|the\s+past|past)\s+{_PERIOD}"
    rf"|(?:back\s+in|in|during|over)\s+the\s+(?-i:{_SEASON})"
    rf"|(?:last|this\s+past|past)\s+{_WEEKDAY}(?:['’]s)?|{_WEEKDAY}\s+(?:of\s+)?(?:last|this|the\s+past)\s+week"
    rf"|(?:{_FEW}\s+)?(?:days|weeks|months|years)\s+ago|a\s+(?:day|week|month|year)\s+ago"
    r"|a\s+(?:long\s+)?while\s+(?:ago|back)|some\s+time\s+ago|the\s+other\s+day"
    rf"|{_ELSEWHERE})\b", re.IGNORECASE)


def content(query: str) -> str:
    """``query`` without its question's framing words, for keyword search (and its spelling hints), its other words
    as written; the query itself when nothing would be left (or nothing is framing)."""
    pieces = _pieces(query)  # (word, quoted)
    if _asks(query, [normalise(w) for w, _ in pieces[:2]]):
        pieces = [(w, quoted) for w, quoted in pieces if quoted or normalise(w) not in FRAMING]
    words = [w for w, _ in pieces]
    return " ".join(words) if words and words != WORD.findall(query) else query


def _pieces(query: str) -> list[tuple[str, bool]]:
    """The query's words in order, each with whether it is quoted; Chinese question words out of quotes left out, and
    the words asking for one's own notes (OWN_NOTES) or for the files citing something (CITING)."""
    query = _MARKS.sub(" ", query)  # no word's letters: free for the marks below
    quotes = [match.group(0) for match in QUOTED.finditer(query)]
    numbered = iter(range(len(quotes)))
    read = _citing_out(QUOTED.sub(lambda _: f"\ue000{next(numbered)}\ue001", query))  # a quote stood for (_KEPT)
    pieces, at = [], 0
    for match in [*_KEPT.finditer(read), None]:
        start, end = (match.start(), match.end()) if match else (len(read), len(read))
        unquoted = _CHINESE.sub(" ", _RECALLED_ZH.sub(" ", _by_someone_zh(read[at:start])))
        unquoted = OWN_NOTES.sub(" ", _KOREAN.sub(" ", _JAPANESE.sub(" ", unquoted)))
        unquoted = WHEN_WRITTEN.sub(" ", SAID_BY_ROLE.sub(" ", unquoted))
        unquoted = _uncontracted(RECALLING.sub(" ", _by_someone(unquoted)))
        pieces += [(w, False) for w in WORD.findall(unquoted)]
        kept = _QUOTE_MARK.sub(lambda mark: quotes[int(mark[1])], read[start:end])
        pieces += [(w, True) for w in WORD.findall(kept)]
        at = end
    return pieces


def _uncontracted(text: str) -> str:
    """``text`` with a framing word's contraction as the word ('what's': what, 'I'm': I)."""
    return _CONTRACTED.sub(lambda m: m.group(1) if m.group(1).casefold() in GOES_ON else m.group(0), text)


def quoted_words(query: str) -> set[str]:
    """The words the query quotes (folded as query_words folds them): what it asks about, whatever they are."""
    return {w for match in QUOTED.finditer(query) for w in WORD.findall(normalise(match.group(0)))}


def asks(query: str) -> bool:
    """Whether the query is a question (``content`` leaves its framing words out): 'how does the consumer handle a
    SIGTERM', 'why is this slow?'."""
    return _asks(query, [normalise(w) for w, _ in _pieces(query)[:2]])


def _asks(query: str, first: list[str]) -> bool:
    undated = WHEN_WRITTEN.sub(" ", query)  # 'what did I write last week about …' recalls too
    if query.rstrip().endswith(("?", "？")) or RECALLING.search(undated) or CITING.search(undated) \
            or SAID_BY_ROLE.search(undated) \
            or any(found["a"] and _a_writer(found) for found in BY_SOMEONE.finditer(undated)):  # 'what did Ben write'
        return True
    if first[:1] and first[0] in ASKING and OWN_NOTES.search(query):  # 'which notes do I have about vim'
        return True
    return len(first) == 2 and first[0] in ASKING | AUXILIARY and first[1] in GOES_ON


def framing(query: str) -> set[str]:
    """The query words (``query_words``: Chinese as bigrams) that only the framing gave: keyword search does not
    look them up, and a snippet does not mark them."""
    kept = content(query)
    return set() if kept is query else set(query_words(query)) - set(query_words(kept))
