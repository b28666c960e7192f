"""A paper's reference list: put apart under its heading (ingest.pdf.references_apart) and kept out of hybrid
search's ranking by meaning (search.query.bibliography), on PDFs written here and the shared real ones."""
from __future__ import annotations

import json

import pytest

from ingest import pdf
from ingest.chunk import chunk_document
from ingest.pdf import parse_pdf
from mcp_server.pdf_pages import page_text
from search.query import bibliography
from tests.conftest import ingest, need_data
from tests.test_pdf_parser import pages_of_lines

BODY = [["Glacier Retreat in Jotunheimen", "Seven outlet glaciers were surveyed each summer since 2019.",
         "Storbreen withdrew forty seven metres in the warm summer of 2022.",
         "Stake readings at twelve stakes per glacier gave the mass balance."],
        ["Meltwater discharge below Hellstugubreen peaked on the ninth of July 2022.",
         "The flood carried away the footbridge used by the survey team.",
         "Smaller cirque glaciers will have disappeared by the middle of the century."],
        ["We recommend annual drone mapping of every glacier front.",
         "References",
         "[1] A. Berg. Glacier mass balance and retreat in southern Norway. J. Glaciology, 2015.",
         "[2] K. Holm. Retreat of outlet glaciers under a warming climate. The Cryosphere, 2019.",
         "[3] L. Dahl. Measuring glacier fronts with drones. Remote Sensing, 2021."],
        ["[4] M. Sand. Meltwater floods from retreating glaciers. Hydrology Research, 2020.",
         "[5] N. Lie. Cirque glaciers of Jotunheimen, 1900-2000. Norsk Geografisk Tidsskrift, 2003."]]


def test_a_reference_list_is_a_section_of_its_own_from_its_heading_mid_page():
    """The body and the reference list of a paper without an outline were one section, windowed together. The
    list is a section of its own from its heading line, which begins mid-page: the page's text is still read
    back whole from the chunks (read_file), the body's piece and the list's each where they are in the page."""
    doc = parse_pdf("report.pdf", pages_of_lines(BODY))
    body, references = doc.sections
    assert (body.heading_path, references.heading_path) == ([], ["References"])
    assert body.text.endswith("We recommend annual drone mapping of every glacier front.\n")
    assert references.text.startswith("References\n[1] A. Berg.") and references.text.endswith("Tidsskrift, 2003.")
    assert [page for _, page, *_ in references.page_starts] == [3, 4]
    chunks = chunk_document(doc, lambda text: len(text.split()), 24, 6)
    rows = [{"text": c.text, "page": c.page, "end_page": c.end_page, "page_starts": json.dumps(c.page_starts)}
            for c in chunks]
    assert {c.heading_path[-1] for c in chunks if "[1]" in c.text or "[5]" in c.text} == {"References"}
    for page, lines in enumerate(BODY, start=1):
        covering = [r for r in rows if r["page"] <= page <= r["end_page"]]
        assert page_text(covering, page) == "\n".join(lines), page


APPENDIX = [["Appendix A. Stake Survey Protocol", "Each stake was drilled two metres into the ice with a steam drill.",
             "Readings were taken at noon by two observers to limit error."],
            ["Appendix B. Drone Flights", "Flights at eighty metres gave a ground resolution of two centimetres."]]


def test_an_appendix_after_the_reference_list_is_body_again():
    """A paper's appendix after its reference list ('Appendix A. …') was read as more of the list, to the end of
    the paper, and so kept out of hybrid search's ranking by meaning: the list ends at the appendix heading, and
    every page still reads back whole from the chunks."""
    pages = BODY + [BODY[-1][:0] + ["[6] O. Vik. Steam drills. 2011.", *APPENDIX[0]], APPENDIX[1]]
    doc = parse_pdf("report.pdf", pages_of_lines(pages))
    assert [s.heading_path for s in doc.sections] == [[], ["References"], []]
    references, appendix = doc.sections[1:]
    assert references.text.rstrip().endswith("[6] O. Vik. Steam drills. 2011.")
    assert (references.page, references.end_page, appendix.page, appendix.end_page) == (3, 5, 5, 6)
    assert appendix.text.startswith("Appendix A. Stake Survey Protocol")
    chunks = chunk_document(doc, lambda text: len(text.split()), 24, 6)
    rows = [{"text": c.text, "page": c.page, "end_page": c.end_page, "page_starts": json.dumps(c.page_starts)}
            for c in chunks]
    assert {c.heading_path[-1] if c.heading_path else "" for c in chunks if "steam drill" in c.text} == {""}
    for page, lines in enumerate(pages, start=1):
        covering = [r for r in rows if r["page"] <= page <= r["end_page"]]
        assert page_text(covering, page) == "\n".join(lines), page


def test_a_heading_word_that_heads_no_reference_list_cuts_nothing():
    """'References' early in a paper (its first third), a lower-case diagram label 'references' over 'Name:' and
    'Package:' lines, or a 'References' with no citation under it stay in the body."""
    label = [["A data model", "Entity text here"], ["More entity text", "and more"],
             ["A diagram", "references", "Name:", "Package:", "Version:", "Author:"]]
    assert [s.heading_path for s in parse_pdf("model.pdf", pages_of_lines(label)).sections] == [[]]
    early = [["References", "[1] A. Berg. Glaciers. 2015."] + BODY[0][1:], BODY[1], ["The end of it all."]]
    assert [s.heading_path for s in parse_pdf("early.pdf", pages_of_lines(early)).sections] == [[]]
    uncited = [BODY[0], BODY[1], ["References", "are made throughout to the survey's own notes", "and maps"]]
    assert [s.heading_path for s in parse_pdf("uncited.pdf", pages_of_lines(uncited)).sections] == [[]]


def test_the_real_pdfs_keep_their_sections():
    """The shared PDFs have no reference list: a data model's manual says 'references' in its diagrams, and
    the German script's outline has chapters of its own."""
    for name in ("en/GeoBase_NHNC1_Data_Model_UML_EN.pdf", "en/multicolumn.pdf", "de/GeoTopo-komprimiert.pdf"):
        doc = parse_pdf(name, need_data(f"pdf/{name}").read_bytes())
        assert not [s for s in doc.sections if s.heading_path and pdf.BIBLIOGRAPHY.fullmatch(s.heading_path[-1])
                    and s.heading_path[-1] != "Bildquellen"], name


def test_search_knows_the_reference_list_heading_as_the_parser_writes_it():
    """search may not import ingest: the two patterns are written twice and must stay the same."""
    assert bibliography.HEADING.pattern == pdf.BIBLIOGRAPHY.pattern
    assert bibliography.HEADING.flags == pdf.BIBLIOGRAPHY.flags


OTHER_NOTES = {"pasta.md": "# Pasta\n\nBoil water, add salt, cook the spaghetti for nine minutes.\n",
               "guitar.md": "# Guitar\n\nRestring the acoustic guitar before the concert on Friday.\n",
               "taxes.md": "# Taxes\n\nThe receipts for 2024 are in the blue folder.\n",
               "garden.md": "# Garden\n\nPlant the tomatoes after the last frost in May.\n",
               "bike.md": "# Bike\n\nThe rear brake pads need replacing before winter.\n"}


@pytest.mark.timeout(600)
def test_hybrid_search_ranks_a_reference_list_by_its_words_not_by_its_meaning(immediate, tmp_path, embedder):
    """A list of the field's titles is close in meaning to any query about it: in four papers, reference-list
    passages ranked above the body's for topic words (22 of the top 5 passages of 12 topic queries). In hybrid
    search a passage under a reference list's heading has no semantic rank now; its words still find it."""
    from search.query.engine import Engine
    from workers import runtime
    root = tmp_path / "papers"
    root.mkdir()
    (root / "report.pdf").write_bytes(pages_of_lines(BODY))
    for name, text in OTHER_NOTES.items():
        (root / name).write_text(text)
    ingest(root)
    engine = Engine(runtime.settings().index_path, lambda: embedder)

    query = "glacier retreat"
    hybrid = [(h.heading_path, h.keyword_rank, h.semantic_rank) for h in engine.search(query, mode="hybrid").hits]
    by_meaning = [(h.heading_path, h.semantic_rank) for h in engine.search(query, mode="semantic").hits]
    assert [rank for heading, rank in by_meaning if heading == "References"] in ([1], [2]), by_meaning
    assert [(bool(kw), sem) for heading, kw, sem in hybrid if heading == "References"] == [(True, None)], hybrid
    assert hybrid[0][0] == "" and hybrid[0][2] == 1, hybrid  # the body, first by meaning
    cited = engine.search("Norsk Geografisk Tidsskrift", mode="hybrid").hits[0]
    assert (cited.heading_path, cited.keyword_rank, cited.page) == ("References", 1, 4)


AVALANCHES = [["Avalanche Warnings in Western Norway", "Forecasters issue a danger level for each region every day.",
               "Wind slabs form on lee slopes after storms from the west.",
               "Most victims trigger the avalanche that buries them."],
              ["Danger levels rise after heavy snowfall and rapid warming.",
               "Skiers should avoid slopes steeper than thirty degrees at level three.",
               "Rescue within fifteen minutes saves most buried victims."],
              ["We recommend daily bulletins for every valley in winter.",
               "References",
               "[1] A. Berg. Glacier mass balance and retreat in southern Norway. J. Glaciology, 2015.",
               "[2] K. Holm. Retreat of outlet glaciers under a warming climate. The Cryosphere, 2019.",
               "[3] M. Sand. Meltwater floods from retreating glaciers. Hydrology Research, 2020."]]


@pytest.mark.timeout(600)
def test_papers_like_a_paper_are_compared_by_their_bodies_not_their_reference_lists(immediate, tmp_path, embedder):
    """similar on a paper gave another paper's reference list as its best passage: two lists citing the same
    works are nearer each other than either body is to the other. A paper's reference list is left out of the
    passages compared, on both sides."""
    from search.query.engine import Engine
    from workers import runtime
    root = tmp_path / "papers"
    root.mkdir()
    (root / "glaciers.pdf").write_bytes(pages_of_lines(BODY))
    (root / "avalanches.pdf").write_bytes(pages_of_lines(AVALANCHES))
    for name, text in OTHER_NOTES.items():
        (root / name).write_text(text)
    ingest(root)
    engine = Engine(runtime.settings().index_path, lambda: embedder)
    like = {h.path: h.heading_path for h in engine.similar(path=("notes", "glaciers.pdf")).hits}
    assert like["avalanches.pdf"] == "", like
    chunk = next(h.chunk_id for h in engine.search("Norsk Geografisk Tidsskrift", mode="keyword").hits)
    like_list = {h.path: h.heading_path for h in engine.similar(chunk_id=chunk).hits}
    assert like_list["avalanches.pdf"] == "References", "a passage of a list is compared as it is"


def test_notes_that_go_on_after_a_slide_of_references_are_body_again():
    """A lecture's notes with a slide of references a third of the way in: every page after it was read as the
    list, to the end (the three weeks of notes after it ranked by their words alone in hybrid search). The list
    ends where lines stop holding a citation's number or year, at the next page's start."""
    pages = [["Lecture Notes on Glaciers", "Glaciers form where snow outlasts the summer melt season.",
              "Ice flows downhill under its own weight at a few metres a day.", "Crevasses open where the ice bends.",
              "Basal sliding speeds the flow where meltwater reaches the bed of the glacier.",
              "Surging glaciers can advance kilometres in a single season before stalling.",
              "Calving fronts lose ice to the sea or to a lake in great slabs each summer."],
             ["Further reading for week one:", "References", "[1] A. Berg. Glacier mass balance. 2015.",
              "[2] K. Holm. Outlet glaciers. 2019.", "[3] L. Dahl. Drones on ice. 2021."],
             ["Week two: moraines", "A moraine is the rock a glacier pushed or carried and left behind.",
              "Terminal moraines mark the furthest advance of the ice.", "Lateral moraines line the valley sides."],
             ["Week three: meltwater", "Meltwater carves channels under the glacier and feeds the rivers below.",
              "Floods from dammed lakes can be sudden and dangerous to villages downstream."],
             ["Week four: field safety", "Rope up on wet glaciers where snow hides the crevasses.",
              "Carry an ice axe and know how to arrest a fall."]]
    doc = parse_pdf("lecture.pdf", pages_of_lines(pages))
    assert [(s.heading_path, s.page, s.end_page) for s in doc.sections] == [([], 1, 2), (["References"], 2, 2),
                                                                           ([], 3, 5)]
    assert doc.sections[2].text.startswith("Week two: moraines")
    chunks = chunk_document(doc, lambda text: len(text.split()), 24, 6)
    rows = [{"text": c.text, "page": c.page, "end_page": c.end_page, "page_starts": json.dumps(c.page_starts)}
            for c in chunks]
    for page, lines in enumerate(pages, start=1):
        covering = [r for r in rows if r["page"] <= page <= r["end_page"]]
        assert page_text(covering, page) == "\n".join(lines), page
