"""Anki's plain-text export of notes is read a card a row, packed under the deck's name and its fields' names:
it was a .txt's one passage of every card, Anki's header lines, ids and tags among its words, or, named .csv, a
table whose first card was taken for the column names heading every passage."""
from __future__ import annotations

from ingest.chunk import chunk_document
from ingest.parse import parse_file

LIMIT, OVERLAP = 256, 32
CARDS = [("What is an eigenvalue?", "A scalar λ with Av = λv for some non-zero v<br>(v: an eigenvector)"),
         ("Rank&ndash;nullity theorem", "rank(A) + nullity(A) = number of columns of A"),
         ("{{c1::Cayley–Hamilton::whose}} theorem", "Every square matrix satisfies its own characteristic polynomial")]
EXPORT = "#separator:tab\n#html:true\n#guid column:1\n#tags column:4\n" + "".join(
    f"a{n}Xk9#q\t{front}\t{back}\tMATH201 exam::final\n" for n, (front, back) in enumerate(CARDS))
ROWS = ["What is an eigenvalue? | A scalar λ with Av = λv for some non-zero v (v: an eigenvector)",
        "Rank–nullity theorem | rank(A) + nullity(A) = number of columns of A",
        "Cayley–Hamilton theorem | Every square matrix satisfies its own characteristic polynomial"]


def test_an_anki_export_is_read_a_card_a_row_without_its_header_ids_or_tags(embedder):
    for name in ("flashcards/Linear Algebra.txt", "flashcards/Linear Algebra.csv"):
        doc = parse_file(name, EXPORT.encode())
        [chunk] = chunk_document(doc, embedder.count, LIMIT, OVERLAP)
        assert chunk.heading_path == ["Linear Algebra", "Front | Back"], name
        assert chunk.text.split("\n") == ROWS, name
        assert (chunk.start_line, chunk.end_line) == (5, 7)
        assert doc.meta["tags"] == ["MATH201", "exam::final"]


def test_an_older_export_without_a_header_is_cards_and_other_text_stays_text(embedder):
    old = "".join(f"{front}\t{back}\n" for front, back in CARDS[:2])
    [chunk] = chunk_document(parse_file("deck.txt", old.encode()), embedder.count, LIMIT, OVERLAP)
    assert chunk.heading_path == ["deck", "Front | Back"]
    assert chunk.text.split("\n") == [f"{front} | {back}" for front, back in CARDS[:2]]  # no header: not HTML
    prose = "Shopping list\tMonday\nmilk, eggs\n"  # a line of no tab: text
    assert [s.text for s in parse_file("list.txt", prose.encode()).sections] == [prose.strip()]
    readings = "".join(f"2026-03-01 09:{m:02d}\t21.{m % 10}\n" for m in range(60))  # numbers, no cards: text
    assert [s.text for s in parse_file("readings.txt", readings.encode()).sections] == [readings.strip()]
