"""Review of the last stop's search code and its leftovers: a snippet marking part of a citekey, a citekey search
ranking the .bib entries above the note that cites it."""
from __future__ import annotations

import os
from pathlib import Path

from search.query.engine import Engine
from search.query.snippet import snippet
from tests.conftest import ingest, need_data, write_tree

ENTRY = ("@mueller2021graph (article)\nSparse Graph Attention for Molecular Property Prediction\n"
         "Jonas Müller, Ana García (2021)")


def test_a_stem_marks_a_whole_word_not_the_start_of_a_citekey():
    """The index reads 'mueller2021graph' as one token, which 'Müller' does not find: the snippet marked its start,
    @**mueller**2021graph, as though search had."""
    shown = snippet(ENTRY, "the paper by Müller on graph attention")
    assert "@mueller2021graph" in shown and "Jonas **Müller**" in shown, shown
    assert snippet("indexing indexed index2 indexes", "indexing") == "**indexing** **indexed** index2 **indexes**"


REFS = """@inproceedings{vaswani2017attention,
  title = {Attention Is All You Need},
  author = {Vaswani, Ashish and Shazeer, Noam},
  year = {2017},
}
@article{devlin2019bert,
  title = {BERT: Pre-training of Deep Bidirectional Transformers},
  author = {Devlin, Jacob},
  year = {2019},
}
"""
NOTES = {"refs.bib": REFS, "library.bib": REFS,
         "notes/attention.md": "# Attention is all you need\n\nRead for chapter 2. [@vaswani2017attention]\n\n"
                               "- Multi-head self-attention, outputs concatenated [@vaswani2017attention, p. 4].\n",
         "notes/queues.md": "# Queues\n\nThe job queue retries an upload three times.\n",
         **{f"notes/garden-{i}.md": f"# Garden {i}\n\nWater the bed number {i} at dusk.\n" for i in range(6)}}


def test_my_notes_on_a_citekey_rank_the_note_citing_it_before_its_bib_entries(immediate, tmp_path, embedder):
    """'my notes on @vaswani2017attention' ranked the two .bib entries of that citekey, headed by it, above the note
    citing it; the citekey alone still ranks its entry first, and an entry no note comes near stays on the page."""
    ingest(write_tree(tmp_path / "research", NOTES))
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    for mode in ("keyword", "hybrid"):
        answer = engine.search("my notes on @vaswani2017attention", mode=mode)
        assert answer.hits[0].path == "notes/attention.md", (mode, [(h.path, h.score) for h in answer.hits])
        assert any("the query asks for your notes" in note for note in answer.notes), answer.notes
        assert {"refs.bib", "library.bib"} <= {hit.path for hit in answer.hits}, answer.hits
        assert not answer.unmatched, answer.notes  # 'my notes' asks where to look: no word no passage holds
    assert engine.search("@vaswani2017attention", mode="keyword").hits[0].path.endswith(".bib")
    assert engine.search("my notes on @devlin2019bert", mode="keyword").hits[0].path.endswith(".bib")


def test_a_bib_entry_s_attached_pdfs_are_its_own_not_as_for_an_earlier_entry_of_its_file(immediate, tmp_path,
                                                                                         embedder):
    """Each entry of a .bib names its own PDFs (hits.named_in): the second entry's hit said 'attached PDF: as for
    hit 1' where hit 1, another entry of the file, had none (or others)."""
    from mcp_server import render
    bib = ("@article{mueller2021graph,\n  title = {Sparse Graph Attention},\n  author = {M{\\\"u}ller, Jonas},\n"
           "  year = {2021}\n}\n"
           "@inproceedings{bahdanau2015attention,\n  title = {Neural Machine Translation with Attention},\n"
           "  author = {Bahdanau, Dzmitry},\n  year = {2015},\n  file = {/home/u/Zotero/storage/ABCD/nmt.pdf}\n}\n"
           "@article{lee2020attention,\n  title = {Attention in Graphs},\n  author = {Lee, Jo},\n  year = {2020},\n"
           "  file = {/home/u/Zotero/storage/EFGH/graphs.pdf}\n}\n")
    ingest(write_tree(tmp_path / "refs", {"library.bib": bib}), "refs")
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db", lambda: embedder)
    hits = [render.hit_data(hit) for hit in engine.search("attention", mode="keyword").hits]
    assert len(hits) == 3 and {h["path"] for h in hits} == {"refs/library.bib"}, hits
    shown = "\n".join(render.hits_text(hits))
    for n, hit in enumerate(hits, start=1):
        block = shown.split(f"\n{n + 1}. ")[0].split(f"{n}. refs/library.bib")[1]
        wanted = [p for p in ("refs/nmt.pdf", "refs/graphs.pdf") if p in hit["attachments"]]
        assert [p for p in ("refs/nmt.pdf", "refs/graphs.pdf") if p in block] == wanted, shown
        assert "as for hit" not in block, shown


def test_a_pdf_is_told_big_by_its_pages_not_its_bytes(tmp_path):
    """A first build in parts leaves the files likely to be embedded in the background to a later part: a PDF was
    told so by its bytes (500 a passage), mostly fonts and images, so a 351 KB manual of 19 pages (22 KB of text,
    45 passages) waited with the 117-page one. Its page count is read from its first and last bytes."""
    import shutil
    from ingest.discover import FoundFile
    from search.settings import load
    from tests.test_pdf_ingest import paged_pdf
    from workers.tasks import _heavy, pdf_pages
    manual, book = need_data("pdf/en/GeoBase_NHNC1_Data_Model_UML_EN.pdf"), need_data("pdf/de/GeoTopo-komprimiert.pdf")
    for pdf in (manual, book):
        shutil.copy(pdf, tmp_path / pdf.name)
    (tmp_path / "tree.pdf").write_bytes(paged_pdf([f"page {i}" for i in range(60)]))  # its page tree at its end
    (tmp_path / "big-note.md").write_text("# Big\n\n" + "word " * 40_000)
    assert (pdf_pages(tmp_path / manual.name), pdf_pages(tmp_path / book.name), pdf_pages(tmp_path / "tree.pdf")) \
        == (19, 117, 60)
    found = [FoundFile(p.name, "pdf" if p.suffix == ".pdf" else "note", p.stat().st_size, 0.0)
             for p in tmp_path.iterdir()]
    assert _heavy(found, load(), tmp_path) == {book.name, "big-note.md"}


def test_man_after_a_number_is_a_numeral_not_the_particle_only():
    """만 after a Latin name is the particle 'only' (API만), left out; after a number it is ten thousand (10만 원, a
    hundred thousand won), which was looked up as '10' alone, found in every note with a 10 in it."""
    from search.query.snippet import snippet
    from search.query.text import query_words
    assert query_words("예산 10만 원") == ["예산", "10", "만", "원"]
    assert query_words("API만") == ["api"]
    assert snippet("예산은 10만 원이다. 10 명", "10만") == "예산은 **10만** 원이다. **10** 명"


def test_a_bib_entry_lists_the_pdfs_its_file_line_names_whole():
    """'a.pdf' (another entry's) was listed on the entry naming 'data.pdf', being part of its text."""
    from search.query.hits import named_in
    text = "@smith2020 (article)\nData in a.pdf files\nFile: data.pdf; Smith - 2020 - Graphs.pdf"
    assert named_in(["refs/a.pdf", "refs/data.pdf", "/z/storage/X/Smith - 2020 - Graphs.pdf", "b.pdf"], text) == \
        ["refs/data.pdf", "/z/storage/X/Smith - 2020 - Graphs.pdf"]
