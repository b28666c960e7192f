"""A long word's two-slip variants are tokenized only where their stem could be a term the index holds
(``stem_reach``): FTS5's porter stemmer rewrites a word's end only, so a stem begins with the word's first
``kept`` letters, and a variant whose first letters begin no held term is left out. Checked here against FTS5's own
porter tokenizer (the index's), on words whose ends porter cuts most."""
from __future__ import annotations

import sqlite3

import pytest

from search.index.schema import TOKENIZER
from search.query.keyword import edits
from search.query.stem_reach import LONGEST, Beginnings, kept, untouched

# words porter cuts deep into (steps 1 to 5, stacked), and ends that step 1 reads (s, es, ies, sses, eed, ed, ing, y)
CUT_DEEP = ["generalizations", "operationalizations", "sensibilities", "relational", "conditional", "hopefulness",
            "electricity", "formalizing", "hoppings", "flyings", "yyings", "aing", "eing", "yying", "agreed", "eed",
            "caresses", "ponies", "ties", "cats", "feed", "plastered", "motoring", "sing", "conflated", "troubled",
            "sized", "hopping", "tanned", "falling", "hissing", "fizzed", "failing", "filing", "happy", "sky",
            "relational", "valenci", "hesitanci", "digitizer", "conformabli", "radicalli", "differentli", "vileli",
            "analogousli", "vietnamization", "predication", "operator", "feudalism", "decisiveness", "hopefulness",
            "callousness", "formaliti", "sensitiviti", "sensibiliti", "triplicate", "formative", "formalize",
            "electriciti", "electrical", "hopeful", "goodness", "revival", "allowance", "inference", "airliner",
            "gyroscopic", "adjustable", "defensible", "irritant", "replacement", "adjustment", "dependent",
            "adoption", "homologou", "communism", "activate", "angulariti", "homologous", "effective", "bowdlerize",
            "probate", "rate", "cease", "controll", "roll", "yelling", "syzygies", "rhythmically", "tryingly"]


def stems(words: list[str]) -> list[str]:
    """FTS5's stem of each word, by the index's tokenizer."""
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{TOKENIZER}')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
    conn.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", enumerate(words))
    found = dict(conn.execute("SELECT doc, term FROM v"))
    return [found[i] for i in range(len(words))]


def test_every_stem_begins_with_the_letters_kept():
    words = sorted({w for word in CUT_DEEP for w in [word, *edits(word)] if w.isalpha()})
    for word, stem in zip(words, stems(words)):
        assert stem[:kept(word)] == word[:kept(word)], (word, stem, kept(word))
    assert kept("generalizations") == 3 and kept("kubernetes") == 3, "'gen', 'kub': what steps 2 to 5 keep"
    assert kept("sings") == 0, "step 1 can cut 'ings' and a doubled letter: nothing is sure to stay"


def test_a_word_whose_ending_no_rule_reads_is_its_own_stem():
    """'elasticsearch' kept only 'el' (its first vowel and consonant), so that 7,176 of its 8,336 two-slip variants
    were tokenized in notes-en: a word ending in none of porter's ENDINGS is its own stem, and is compared by its
    first LONGEST letters. Checked here against FTS5 on such words and their variants (and on 1.8 million words of
    notes-en and SciFact and their variants when it was written)."""
    words = sorted({w for word in ["elasticsearch", "terraform", "github", "webpack", "sqlalchemy", "clojure", "tmux",
                                   "nginx", "grafana", "kafka", "redux"] for w in [word, *edits(word)] if w.isalpha()})
    own = [w for w in words if untouched(w)]
    assert len(own) > len(words) / 3
    assert [stem for word, stem in zip(words, stems(words)) if untouched(word)] == own
    assert kept("elasticsearch") == 13 and kept("terraform") == 9 and kept("kubernetes") == 3
    assert not untouched("clusters") and not untouched("nation") and not untouched("formal")
    variants = [w for w in edits("elasticsearch") if w.isalpha()]
    beginnings = Beginnings(stems(["else", "element", "electric", "elbow"]))
    assert len(beginnings.passing(variants)) < 0.1 * len(variants), "a held term must begin 'elast', not 'el'"
    assert Beginnings(stems(["elasticsearch"])).passing(["elasticsearch", "elasticsaerch", "zlasticsearch"]) == [
        "elasticsearch", "elasticsaerch"]


def test_only_words_that_cannot_stem_to_a_held_term_are_refused():
    held = stems(["deployment", "default", "caffeinate", "statement", "column", "generalizations", "kitten"])
    beginnings = Beginnings(held)
    words = sorted({w for word in ["deploymnet", "defualt", "caffiene", "statment", "colunm", "general", "kubernetes",
                                   "generalizing"] for w in [word, *edits(word)] if w.isalpha()})
    for word, stem in zip(words, stems(words)):
        if stem in held:
            assert beginnings.may_stem_to_one(word), (word, stem)
    assert beginnings.passing(words) == [w for w in words if beginnings.may_stem_to_one(w)]
    variants = [w for w in edits("kubernetes") if w.isalpha()]
    refused = [w for w in variants if not beginnings.may_stem_to_one(w)]
    assert len(refused) > 0.9 * len(variants), "'kub' begins no held term"
    assert not beginnings.may_stem_to_one("zzzzzzzz") and beginnings.may_stem_to_one("columns")
    assert LONGEST == 5


def test_a_words_variants_asked_again_are_answered_from_what_was_kept(monkeypatch):
    """A query asked again walked its thousands of variants through the check again, with their tokens cached: the
    answer is kept by the variants asked, and handed out as a copy (a caller's change does not reach the next)."""
    beginnings = Beginnings(["kubernet", "deploy"])
    variants = sorted(set(edits("kuberntes")))
    first = beginnings.passing(variants)
    assert "kubernetes" in first and "zuberntes" not in first
    first.append("changed by the caller")
    monkeypatch.setattr(beginnings, "_passing", lambda words: pytest.fail("walked again"))
    assert beginnings.passing(variants) == first[:-1]
    assert Beginnings(["kubernet"]).passing(["zuberntes"]) == [], "another set of terms: its own answers"
