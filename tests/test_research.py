"""A researcher's folder: a BibTeX library (ingest.bibtex), a LaTeX thesis (ingest.latex), notes citing with Pandoc
citekeys and the PDFs Zotero stores; searched by citekey, DOI, an author's accented name, a thesis' section."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from ingest.kinds import kind_of
from ingest.links import converted_pdfs
from ingest.parse import parse_file
from search.query.text import doi_phrases
from tests.conftest import ingest, need_data, write_tree

LIBRARY = r"""% Exported by Better BibTeX for Zotero
@string{jmlr = {Journal of Machine Learning Research}}
@comment{jabref-meta: databaseType:bibtex;}

@inproceedings{vaswani2017attention,
  title = {Attention Is All You Need},
  author = {Vaswani, Ashish and Kaiser, {\L}ukasz and others},
  year = {2017},
  month = jun,
  booktitle = {Advances in Neural Information Processing Systems} # " 30",
  abstract = {A network architecture based solely on attention, dispensing with recurrence.},
  keywords = {attention,transformer},
  doi = {10.48550/arXiv.1706.03762},
  file = {/home/jana/Zotero/storage/ABCD1234/Vaswani et al. - 2017 - Attention is all you need.pdf}
}

@article{mueller2021graph,
  title = "{Sparse} graph attention for {M}olecules",
  author = {M{\"u}ller, Thomas and Garc{\'\i}a, Mar{\'\i}a and Dupont, Fran{\c{c}}ois},
  journal = jmlr,
  year = 2021,
  doi = {10.18653/v1/N19-1423},
  file = {Full Text PDF:papers/mueller.pdf:application/pdf},
}

@article{broken,
  title = {Never {closed,

@misc{karpukhin2020dpr, title={Dense passage retrieval}, doi = {10.18653/v1/2020.emnlp-main.550},
  note = {50\% better --- than {BM25}}}
"""

MAIN = r"""\documentclass{report}
\usepackage{amsmath} % preamble: never searched
\title{Dense Retrieval for Verifying Claims}
\begin{document}
\begin{abstract}
We verify \emph{scientific} claims. % a comment: never searched
\end{abstract}
\input{chapters/related}
\chapter{Method}\label{ch:method}
\section[Short]{Contrastive loss}
We minimise $\mathcal{L} = -\log p$ as in \citep[p.~4]{vaswani2017attention,smith2020}.
\begin{equation}
  \mathcal{L} = \sum_j e^{s_j} % the loss
\end{equation}
% \section{Dropped section}
\subsection{M{\"u}ller's trick}
Text ``quoted'' --- here.
\end{document}
after the end: never searched
"""

RELATED = r"""\chapter{Related Work}
Curriculum learning \cite{smith2020} orders sentences from easy to hard.
"""


def test_a_bib_file_is_a_passage_an_entry_headed_by_its_citekey_its_latex_read_as_text():
    doc = parse_file("library.bib", LIBRARY.encode())
    assert doc.kind == "note" and kind_of("refs.BIB") == "note" and kind_of("main.tex") == "note"
    entries = {s.heading_path[0]: s for s in doc.sections}
    assert list(entries) == ["vaswani2017attention", "mueller2021graph", "broken", "karpukhin2020dpr"], entries
    vaswani = entries["vaswani2017attention"].text.split("\n")
    assert vaswani[:3] == ["@vaswani2017attention (inproceedings)", "Attention Is All You Need",
                           "Ashish Vaswani, Łukasz Kaiser, et al. (2017)"], vaswani
    assert "In: Advances in Neural Information Processing Systems 30" in vaswani, vaswani  # '#' joins, macros read
    assert "Keywords: attention, transformer" in vaswani and "DOI: 10.48550/arXiv.1706.03762" in vaswani, vaswani
    mueller = entries["mueller2021graph"].text
    assert "Sparse graph attention for Molecules" in mueller, mueller  # braces out
    assert "Thomas Müller, María García, François Dupont (2021)" in mueller, mueller  # accents as letters
    assert "Journal: Journal of Machine Learning Research" in mueller, mueller  # an @string
    # each entry at its own lines; one never closed ends where the next begins, costing no other entry
    lines = LIBRARY.split("\n")
    assert lines[entries["mueller2021graph"].start_line - 1].startswith("@article{mueller2021graph")
    assert lines[entries["mueller2021graph"].end_line - 1] == "}"
    assert "Note: 50% better — than BM25" in entries["karpukhin2020dpr"].text
    # the PDF Zotero stores, by its name: another machine's path
    # and one beside the library, from its folder (Zotero's 'description:path:type')
    assert doc.meta["links"] == ["Vaswani et al. - 2017 - Attention is all you need.pdf", "papers/mueller.pdf"]
    assert "File: mueller.pdf" in mueller, mueller


def test_a_tex_file_is_a_note_by_its_sections_without_comments_or_preamble_its_citekeys_kept():
    doc = parse_file("thesis/main.tex", MAIN.encode())
    assert doc.title == "Dense Retrieval for Verifying Claims", doc.title
    parts = {" > ".join(s.heading_path): s for s in doc.sections}
    assert list(parts) == ["Abstract", "Method", "Method > Contrastive loss", "Method > Contrastive loss > Müller's trick"]
    whole = "\n".join(s.text for s in doc.sections)
    for unseen in ("amsmath", "comment", "Dropped section", "after the end", "ch:method", "Short"):
        assert unseen not in whole, unseen
    loss = parts["Method > Contrastive loss"]
    assert "We minimise $\\mathcal{L} = -\\log p$ as in \\cite{vaswani2017attention, smith2020}." in loss.text
    assert "\\mathcal{L} = \\sum_j e^{s_j}" in loss.text  # math as written, its comment out
    assert MAIN.split("\n")[loss.start_line - 1].startswith("\\section[Short]{Contrastive loss}"), loss
    assert "Text “quoted” — here." in parts["Method > Contrastive loss > Müller's trick"].text
    assert "We verify scientific claims." in parts["Abstract"].text
    assert doc.meta["links"] == ["/thesis/chapters/related.tex"], doc.meta


def test_a_bib_beside_the_pdf_of_its_name_does_not_stand_for_it_a_tex_does():
    """refs.bib lists what the paper cites: the PDF is read as well, where a note of its name beside it (paper.md)
    would stand for it; draft.tex typesets draft.pdf: read too, it put the thesis twice in results."""
    assert converted_pdfs({"paper.pdf", "paper.bib", "draft.pdf", "draft.tex"}) == {"draft.tex": "draft.pdf"}
    assert converted_pdfs({"paper.pdf", "paper.md"}) == {"paper.md": "paper.pdf"}


def test_a_doi_in_a_query_is_looked_up_whole_too():
    assert doi_phrases("the entry with DOI 10.18653/v1/N19-1423.") == {"10.18653/v1/n19-1423": "10 18653 v1 n19 1423"}
    assert doi_phrases("version 10.2 of it") == {}


def test_a_researchers_folder_is_searched_by_citekey_doi_author_and_section(immediate, tmp_path, monkeypatch):
    """Before, .bib and .tex were kinds Sift does not read: none of these searches found its answer."""
    from search.query.engine import Engine
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "research", {
        "library.bib": LIBRARY, "thesis/main.tex": MAIN, "thesis/chapters/related.tex": RELATED,
        "notes/attention.md": "# Attention\n\nMulti-head attention [@vaswani2017attention, p. 4].\n",
        "notes/other.md": "# Other\n\nNothing on transformers.\n"})
    storage = root / "Zotero" / "storage" / "ABCD1234"
    storage.mkdir(parents=True)
    shutil.copy(need_data("pdf/en/google-doc-document.pdf"),
                storage / "Vaswani et al. - 2017 - Attention is all you need.pdf")
    (root / "papers").mkdir()
    shutil.copy(need_data("pdf/en/multicolumn.pdf"), root / "papers" / "mueller.pdf")
    published = ingest(root, "research")["published"]
    assert published["failures"] == [] and ".bib" not in published["unread"], published
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")

    def found(query: str) -> list[tuple[str, str]]:
        return [(h.path, h.heading_path) for h in engine.search(query, mode="keyword").hits]

    assert found("@smith2020") == [("thesis/chapters/related.tex", "Related Work"),
                                   ("thesis/main.tex", "Method > Contrastive loss")], found("@smith2020")
    assert set(found("vaswani2017attention")[:3]) == {
        ("library.bib", "vaswani2017attention"), ("notes/attention.md", "Attention"),
        ("thesis/main.tex", "Method > Contrastive loss")}, found("vaswani2017attention")
    assert found("10.18653/v1/N19-1423")[0] == ("library.bib", "mueller2021graph")  # not karpukhin's 10.18653/v1/…
    assert found("García")[0] == ("library.bib", "mueller2021graph")  # Garc{\\'\\i}a
    assert found("François")[0] == ("library.bib", "mueller2021graph")
    assert found("related work")[0] == ("thesis/chapters/related.tex", "Related Work")
    assert found("preamble") == [] and found("amsmath") == []
    # the entry's file = {…} links the PDF Zotero keeps: the PDF is cited by the .bib, the entry's hit attaches it
    pdf = "Zotero/storage/ABCD1234/Vaswani et al. - 2017 - Attention is all you need.pdf"
    entry = engine.search("vaswani2017attention", mode="keyword", limit=10).hits
    bib = next(h for h in entry if h.path == "library.bib")
    assert bib.attachments == [pdf], bib  # its own PDF: not every PDF the library names
    other = next(h for h in engine.search("García", mode="keyword").hits if h.path == "library.bib")
    assert other.attachments == ["papers/mueller.pdf"], other
    document = next(h for h in engine.search("document", mode="keyword", limit=10).hits if h.path == pdf)
    assert document.cited_by == ["library.bib"], document


def test_a_doi_finds_its_entry_first_not_another_of_its_publisher(immediate, tmp_path, embedder):
    """A DOI's parts ('10', '18653', 'v1') are in every DOI of its publisher: looked up by its parts alone, another
    ACL entry, nearer in meaning to 'find the entry with DOI', came first in a hybrid search."""
    from tests.conftest import indexed_engine
    entries = "".join(
        f"@inproceedings{{{key},\n  title = {{{title}}},\n  doi = {{10.18653/v1/{doi}}},\n}}\n\n"
        for key, title, doi in [("devlin2019bert", "Pre-training of deep bidirectional transformers", "N19-1423"),
                                ("karpukhin2020dpr", "Finding the passage: an entry on dense retrieval",
                                 "2020.emnlp-main.550"),
                                ("reimers2019sbert", "Sentence embeddings", "D19-1410")])
    root = write_tree(tmp_path / "research", {"library.bib": entries})
    engine = indexed_engine(root, "research", embedder)
    hits = engine.search("find the entry with DOI 10.18653/v1/N19-1423", limit=5).hits
    assert hits[0].heading_path == "devlin2019bert", [(h.heading_path, h.score) for h in hits]


def test_read_file_reads_a_thesis_section_and_a_bib_entry_by_heading(immediate, tmp_path, monkeypatch):
    """read_file's heading looked for '#' lines: a .tex file's \\section and a .bib's entries had none ('it has no
    headings'). A section is read by its name, an entry by its citekey."""
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    ingest(write_tree(tmp_path / "research", {"library.bib": LIBRARY, "thesis/main.tex": MAIN}), "research")
    sift = Sift(load())
    shown, data = reading.read(sift, "research/thesis/main.tex", None, None, None, heading="Contrastive loss")
    lines = MAIN.split("\n")
    # from its heading to the file's end (no heading of its level or above follows), its subsection included
    assert (data["start_line"], data["end_line"]) == (lines.index("\\section[Short]{Contrastive loss}") + 1,
                                                       len(lines) - 1), shown
    assert "ller's trick}" in shown and "\\chapter{Method}" not in shown, shown
    shown, data = reading.read(sift, "research/library.bib", None, None, None, heading="mueller2021graph")
    lines = LIBRARY.split("\n")
    assert data["start_line"] == lines.index("@article{mueller2021graph,") + 1, shown
    assert "Sparse} graph attention" in shown and "Attention Is All You Need" not in shown, shown


@settings(max_examples=150, deadline=None)
@given(text=st.lists(st.sampled_from(["@article{", "@string{", "@comment{", "k,", " title = ", "{", "}", "(", ")",
                                      '"', "#", ",", "=", "\n", "\\", "\\\"u", "{\\'\\i}", "\\section{", "\\cite{a,",
                                      "%", "\\begin{document}", "\\end{document}", "\\begin{equation}", "$", "x",
                                      " and ", "file = {/a/b.pdf}", "@misc(", "\\input{c}", "é"]),
                     max_size=60).map("".join), name=st.sampled_from(["library.bib", "thesis.tex"]))
def test_any_bib_or_tex_text_gives_sections_at_its_own_lines(text, name):
    """Braces never closed, quotes, entries inside entries, stray '@', comments and environments in any order: a
    document whose every section lies within the file's lines, or a reason."""
    doc = parse_file(name, text.encode())
    lines = text.count("\n") + 1
    for section in doc.sections:
        assert 1 <= section.start_line <= section.end_line <= lines, (section, text)
        assert section.text.strip(), (section, text)


def test_read_file_on_a_paper_says_which_notes_cite_it(immediate, tmp_path, monkeypatch):
    """A reading note's hit names the PDF it cites and the PDF's hit the notes citing it, but read_file on the paper
    said nothing of them: an assistant reading the paper could not go back to the notes on it. Its first page now
    ends with them, as a note's first lines end with its backlinks; its later pages do not repeat them."""
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "research", {
        "library.bib": "@misc{peters2004zen,\n  title = {The Zen of Python},\n  file = {papers/zen.pdf},\n}\n",
        "notes/zen.md": "# Zen\n\nRead [[zen.pdf]] and [page 1](../papers/zen.pdf#page=1).\n",
        "notes/other.md": "# Other\n\nNo paper here.\n"})
    (root / "papers").mkdir()
    shutil.copy(need_data("pdf/en/google-doc-document.pdf"), root / "papers" / "zen.pdf")
    ingest(root, "research")
    shown, _ = reading.read(Sift(load()), "research/papers/zen.pdf", None, None, None)
    assert shown.endswith("\n[cited by 2 notes: research/library.bib, research/notes/zen.md]"), shown
    shown, _ = reading.read(Sift(load()), "research/papers/zen.pdf", None, None, 1, start_offset=10)
    assert "cited by" not in shown, shown


def test_a_citekey_finds_the_notes_citing_it_before_passages_found_by_meaning(immediate, tmp_path, embedder):
    """A citekey has no meaning for the model: in a hybrid search for '@geobase2004nhn' a researcher's reading note
    citing it came 6th, after the paper's title page and a lorem-ipsum paper found by meaning alone (here 4th). The
    passages holding the key come first now, the .bib entry and the note; the rest follow as ranked."""
    from tests.conftest import indexed_engine
    root = write_tree(tmp_path / "research", {
        "library.bib": "@techreport{geobase2004nhn,\n  title = {National Hydro Network: Data Model},\n"
                       "  file = {papers/nhn.pdf},\n}\n",
        "notes/hydro.md": "# Week 12\n\nMet Anna about the thesis timeline: chapter three by May, the conference "
                          "in Lisbon in June, travel money from the department. Coffee machine broken again. "
                          "Linear referencing, as in @geobase2004nhn, could fit the gauge data.\n"})
    (root / "papers").mkdir()
    shutil.copy(need_data("pdf/en/GeoBase_NHNC1_Data_Model_UML_EN.pdf"), root / "papers" / "nhn.pdf")
    shutil.copy(need_data("pdf/en/multicolumn.pdf"), root / "papers" / "lorem.pdf")
    engine = indexed_engine(root, "research", embedder)
    # asked as a question too: its framing words ('which files refer to', question.CITING) are no part of the key
    for query in ("@geobase2004nhn", "geobase2004nhn", "which files refer to geobase2004nhn", "geobase2004nhn?",
                  "what cites geobase2004nhn?", "where is geobase2004nhn cited?"):
        answer = engine.search(query, limit=10)
        assert [h.path for h in answer.hits[:2]] == ["library.bib", "notes/hydro.md"], \
            [(h.path, h.score) for h in answer.hits]
    assert engine.search("National Hydro Network", limit=10).hits[0].path != "notes/hydro.md"  # no citekey: as ranked


def test_read_file_on_a_notes_relative_link_to_a_paper_names_the_paper(immediate, tmp_path, monkeypatch):
    """An assistant that read a reading note and followed its link, '../papers/zen.pdf#page=1', was refused as
    outside the indexed folders and told nothing more; the refusal now names the indexed paper the link reaches,
    with its page. A path outside that names no indexed file is refused as before."""
    from mcp_server import reading
    from mcp_server.errors import Problem
    from mcp_server.service import Sift
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "research", {"notes/zen.md": "# Zen\n\n[page 1](../papers/zen.pdf#page=1)\n"})
    (root / "papers").mkdir()
    shutil.copy(need_data("pdf/en/google-doc-document.pdf"), root / "papers" / "zen.pdf")
    shutil.copy(need_data("pdf/en/multicolumn.pdf"), root / "papers" / "Multi Column.pdf")
    ingest(root, "research")
    for path, said in [("../papers/zen.pdf#page=1", "did you mean 'research/papers/zen.pdf#page=1'?"),
                       ("../papers/zen.pdf", "did you mean 'research/papers/zen.pdf'?"), ("../../etc/passwd", None),
                       # a Markdown link writes a space in a name as %20: the link copied as the note writes it
                       ("../papers/Multi%20Column.pdf#page=2",
                        "did you mean 'research/papers/Multi Column.pdf#page=2'?"),
                       ("../", None), ("..", None)]:  # a link to no file: every folder was offered for it
        try:
            reading.read(Sift(load()), path, None, None, None)
        except Problem as problem:
            assert "lies outside the indexed folders" in str(problem), problem
            assert (said in str(problem)) if said else "did you mean" not in str(problem), problem
        else:
            raise AssertionError(f"{path} was read")


def test_a_search_whose_filters_leave_no_file_suggests_no_other_spelling(immediate, tmp_path, monkeypatch):
    """A researcher searching their code (kind='code') before any was indexed was told 'no passage contains
    'order' (did you mean 'oder'?)', from a German paper (here 'Oder'), beside the note that the filter leaves no
    file: other words cannot help. Only the filter's note is said; without the filter the spelling note stays."""
    from search.query.engine import Engine
    from search.query.filters import Filters
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    ingest(write_tree(tmp_path / "research", {"notes/oder.md": "# Die Oder\n\nDie Oder ist ein Fluss.\n"}), "research")
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    notes = engine.search("stream order", mode="keyword", filters=Filters(kind="code")).notes
    assert [n for n in notes if "did you mean" in n] == [] and any("of kind code" in n for n in notes), notes
    assert any("did you mean 'Oder' for 'order'" in n for n in engine.search("stream order", mode="keyword").notes)


def test_math_in_a_bib_title_and_a_tex_title_or_heading_is_kept_a_lone_greek_letter_as_the_letter():
    """Better BibTeX writes Zotero's 'TNF-α and β-catenin' as 'TNF-$\\alpha$ and $\\beta$-catenin': the entry read
    'TNF-$$ and $$-catenin' (math's commands dropped), and so did a .tex title and heading; 'TNF-α' found none."""
    bib = parse_file("library.bib", (
        "@article{mueller2018tnf,\n  title = {{TNF}-$\\alpha$ and $\\beta$-catenin in $\\mathcal{O}(n)$ time},\n"
        "  author = {M{\\\"u}ller, Hans},\n  year = {2018},\n}\n").encode())
    title = bib.sections[0].text.split("\n")[1]
    assert title == "TNF-α and β-catenin in $\\mathcal{O}(n)$ time", bib.sections[0].text
    tex = parse_file("draft.tex", (
        "\\documentclass{article}\n\\title{The role of $\\Delta$ and $\\beta$-catenin}\n\\begin{document}\n"
        "\\section{TNF-$\\alpha$ in $\\beta$-cells}\nWe set $\\alpha = 0.05$ and saw IL-6 and TNF-$\\alpha$ rise.\n"
        "\\end{document}\n").encode())
    assert tex.title == "The role of Δ and β-catenin", tex.title
    assert tex.sections[0].heading_path == ["TNF-α in β-cells"], tex.sections[0].heading_path
    assert "We set $\\alpha = 0.05$ and saw IL-6 and TNF-α rise." in tex.sections[0].text, tex.sections[0].text
