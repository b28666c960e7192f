"""Review of a researcher's files and other-language queries: a ``\\verb`` holding '%', a ``comment`` environment,
a quoted value with a parenthesis in an entry written in parentheses, an English query with a loanword's accent, a
Russian noun of -ость."""
from __future__ import annotations

import os
from pathlib import Path

from ingest.bibtex import parse_bibtex
from ingest.latex import parse_latex
from search.query.engine import Engine
from search.query.inflection import query_languages, russian_forms
from search.query.text import normalise, query_words
from tests.conftest import ingest, write_tree

TEX = r"""\section{Formatting}
Use \verb|%d| to print the count of rows, and \verb+50%+ for a share, \lstinline[language=C]!%s! a name. % a comment
\begin{comment}
an old draft paragraph with zanzibar in it
\end{comment}
The end of the section.
"""


def test_a_percent_sign_in_verb_is_no_comment_and_its_text_is_kept():
    text = parse_latex("/thesis/ch1.tex", TEX).sections[0].text
    assert "Use %d to print the count of rows, and 50% for a share, %s a name." in text
    assert "a comment" not in text and "\\verb" not in text


def test_a_comment_environment_is_not_read():
    section = parse_latex("/thesis/ch1.tex", TEX).sections[0]
    assert "zanzibar" not in section.text and "old draft" not in section.text
    assert "The end of the section." in section.text and section.end_line == 6  # lines still the file's


def test_a_parenthesis_in_a_quoted_value_does_not_end_an_entry_in_parentheses():
    bib = ('@article(smith2020,\n  title = "Graphs (and more) in practice",\n  author = "Smith, John",\n'
           '  year = 2020\n)\n@book{doe2019, title = {Other}}\n')
    entries = parse_bibtex("/refs.bib", bib).sections
    assert [s.heading_path for s in entries] == [["smith2020"], ["doe2019"]]
    assert "Graphs (and more) in practice\nJohn Smith (2020)" in entries[0].text
    assert (entries[0].start_line, entries[0].end_line) == (1, 5)


def test_an_english_loanword_s_accent_shows_no_other_language():
    for query in ("café opening date", "résumé template for engineers", "Pokémon cards data", "naïve Bayes"):
        assert query_languages(normalise(query)) == frozenset(), query
    assert set(query_words("café opening date")) == {"café", "opening", "date"}  # not 'data', 'dato' …
    assert "data" not in query_words("Résumé dates")
    assert query_languages(normalise("el café de la esquina")) == {"es"}  # a Spanish query still is one


def test_a_russian_noun_of_ost_is_looked_up_in_its_forms_not_as_a_verb():
    """'безопасность' (security) was cut as a verb's -ть: looked up as 'безопасносл', 'безопасносла' …, never as
    'безопасности', the form a note writes after 'требования к', 'проверка'."""
    assert russian_forms("безопасность")[:2] == ["безопасности", "безопасностью"]
    assert russian_forms("новость") == ["новости", "новостью", "новостей", "новостям", "новостях", "новостями"]
    assert "читал" in russian_forms("читать")  # a verb is still one


def test_a_russian_noun_of_ost_finds_the_note_writing_another_form(immediate, tmp_path, embedder):
    ingest(write_tree(tmp_path / "notes", {"сервер.md": "# Сервер\n\nПроверка безопасности сервера раз в неделю.",
                                           "other.md": "# Queue\n\nThe job queue retries an upload."}))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    answer = engine.search("безопасность", mode="keyword")
    assert [hit.path for hit in answer.hits] == ["сервер.md"] and not answer.unmatched
