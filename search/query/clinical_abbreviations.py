"""What a clinical abbreviation stands for, written out, finds the abbreviation: a ward note writes MI, HTN, T2DM,
NSTEMI where a question (or a guideline) writes myocardial infarction, hypertension, type 2 diabetes mellitus.
Keyword search found only the words as the query wrote them, and by meaning the small model put the note saying
'Known HTN' below three others for 'hypertension'. A meaning no passage writes out is looked up by its abbreviations
(``held``, a form of it as ``search.query.keyword.held_forms`` gives others), which the snippet marks. Not where some
passage writes it out: looked up as a word of its own, an abbreviation counted twice for the papers that write
'myocardial infarction (MI)' and then MI, and 3 of SciFact's 10 claims writing such a meaning ranked their judged
abstracts lower (keyword nDCG@10 0.696 -> 0.692), none higher.

Only abbreviations whose clinical sense is the one notes mean by them: not RA, MS, ED, BP (base pairs in a paper),
EGFR (a gene as often as a filtration rate), nor those that are English words (CAP, ACE, SOB)."""
from __future__ import annotations

import functools
import re
import unicodedata
from typing import Callable

# abbreviation: what it stands for, or another way of writing it (British and American spellings each; the words as
# FTS5 reads them, a hyphen a space)
MEANINGS: dict[str, tuple[str, ...]] = {
    "mi": ("myocardial infarction",),
    "stemi": ("st elevation myocardial infarction",),
    "nstemi": ("non st elevation myocardial infarction",),
    "acs": ("acute coronary syndrome",),
    "htn": ("hypertension",),
    "dm": ("diabetes mellitus",),
    "t1dm": ("type 1 diabetes mellitus", "type 1 diabetes"),
    "t2dm": ("type 2 diabetes mellitus", "type 2 diabetes"),
    "dka": ("diabetic ketoacidosis",),
    "ckd": ("chronic kidney disease",),
    "aki": ("acute kidney injury",),
    "af": ("atrial fibrillation",),
    "hf": ("heart failure",),
    "hfref": ("heart failure with reduced ejection fraction",),
    "hfpef": ("heart failure with preserved ejection fraction",),
    "lvef": ("left ventricular ejection fraction",),
    "cad": ("coronary artery disease",),
    "chd": ("coronary heart disease",),
    "cvd": ("cardiovascular disease",),
    "pci": ("percutaneous coronary intervention",),
    "cabg": ("coronary artery bypass graft",),
    "tia": ("transient ischaemic attack", "transient ischemic attack"),
    "cva": ("cerebrovascular accident",),
    "pe": ("pulmonary embolism",),
    "dvt": ("deep vein thrombosis",),
    "vte": ("venous thromboembolism",),
    "copd": ("chronic obstructive pulmonary disease",),
    "osa": ("obstructive sleep apnoea", "obstructive sleep apnea"),
    "uti": ("urinary tract infection",),
    "gord": ("gastro oesophageal reflux disease", "gastroesophageal reflux disease"),
    "gerd": ("gastroesophageal reflux disease", "gastro oesophageal reflux disease"),
    "ibd": ("inflammatory bowel disease",),
    "bph": ("benign prostatic hyperplasia",),
    "bmi": ("body mass index",),
    "sbp": ("systolic blood pressure",),
    "dbp": ("diastolic blood pressure",),
    "ldl": ("low density lipoprotein",),
    "hdl": ("high density lipoprotein",),
    "icu": ("intensive care unit",),
    "nsaid": ("non steroidal anti inflammatory drug",),
    "ppi": ("proton pump inhibitor",),
    "arb": ("angiotensin receptor blocker",),
    "ssri": ("selective serotonin reuptake inhibitor",),
    # one test written several ways: A1c where the lab writes HbA1c, and the other way
    "hba1c": ("a1c", "hgba1c", "glycated haemoglobin", "glycated hemoglobin", "haemoglobin a1c", "hemoglobin a1c"),
    "a1c": ("hba1c", "hgba1c"),
}
# what is written out: its abbreviations ('type 2 diabetes' gives t2dm; 'gastroesophageal reflux disease' gerd, gord)
ABBREVIATIONS: dict[tuple[str, ...], tuple[str, ...]] = {}
for _abbreviation, _meanings in MEANINGS.items():
    for _meaning in _meanings:
        ABBREVIATIONS[tuple(_meaning.split())] = ABBREVIATIONS.get(tuple(_meaning.split()), ()) + (_abbreviation,)
LONGEST = max(len(words) for words in ABBREVIATIONS)
WORD = re.compile(r"[^\W_]+")  # as FTS5 parts words: at a hyphen, a space, a mark


@functools.lru_cache(maxsize=64)
def other_forms(query: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(a meaning ``query`` writes out, folded: its abbreviations) of each, in the query's order: 'known
    hypertension' gives (('hypertension', ('htn',)),), 'MI after coronary artery bypass graft' (('coronary artery
    bypass graft', ('cabg',)),). The longest is taken ('non-ST elevation myocardial infarction' is nstemi, not mi).
    Not the other way: 'MI' looked up as 'myocardial infarction' too ranked a paper writing that phrase (two rare
    words) above the ward note writing MI as the query does."""
    words = WORD.findall(unicodedata.normalize("NFKC", query).casefold())
    found: dict[str, tuple[str, ...]] = {}
    at = 0
    while at < len(words):
        size = next((size for size in range(min(LONGEST, len(words) - at), 0, -1)
                     if tuple(words[at:at + size]) in ABBREVIATIONS), 0)
        if size:
            found.setdefault(" ".join(words[at:at + size]), ABBREVIATIONS[tuple(words[at:at + size])])
        at += size or 1
    return tuple(found.items())


def held(query: str, tokens: Callable[[list[str]], list[tuple[str, ...]]], documents: Callable[[str], int],
         side_by_side: Callable[[str], bool] | None = None) -> dict[str, list[str]]:
    """{a meaning ``query`` writes out that no passage holds: its abbreviations that some passage holds} (the index
    asked as ``keyword.held_forms`` asks it: ``tokens`` of words, ``documents`` holding a token, ``side_by_side``
    whether a passage holds an FTS5 phrase; without it, only a meaning one of whose words no passage holds)."""
    found = {}
    for meaning, abbreviations in other_forms(query):
        words = meaning.split()
        if all(len(t) == 1 and documents(t[0]) for t in tokens(words)):  # each of its words is held somewhere
            if len(words) == 1 or side_by_side is None or side_by_side('"' + meaning + '"'):
                continue
        kept = [a for a, t in zip(abbreviations, tokens(list(abbreviations))) if len(t) == 1 and documents(t[0])]
        if kept:
            found[meaning] = kept
    return found
