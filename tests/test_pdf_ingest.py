"""PDFs through the pipeline: pages, problem files recorded with reasons, links between PDFs and notes."""
from __future__ import annotations

import re
import shutil

import pytest
from pypdf import PdfReader

from ingest.pdf import PASSWORD
from search.query import reader
from search.query.filters import Filters
from tests.conftest import ingest, need_data, run_ingest, write_tree

TEXT_PDFS = ["en/google-doc-document.pdf", "en/multicolumn.pdf", "de/GeoTopo-komprimiert.pdf",
             "en/GeoBase_NHNC1_Data_Model_UML_EN.pdf", "en/Seige_of_Vicksburg_Sample_OCR.pdf"]


@pytest.mark.slow  # reads every page of the shared PDFs (a 100-page one among them), keyword-only
def test_text_pdfs_get_pages_and_problem_files_get_reasons(immediate, sift_env, tmp_path, monkeypatch):
    from workers import runtime
    # every PDF in this build: GeoTopo (over 100 pages) would be embedded in the background, and in immediate mode
    # the scan its job queues finds this build under way and is put off (a consumer's periodic task runs it)
    monkeypatch.setenv("SIFT_BACKGROUND_CHUNKS", "0")
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")  # pages and reasons are the point, not vectors
    runtime.reset()
    source = need_data("pdf")
    root = tmp_path / "pdf"
    shutil.copytree(source, root)
    report = ingest(root, "pdfs")
    conn = runtime.index()
    chunks = reader.visible_chunks(conn)
    for pdf in TEXT_PDFS:
        pages = len(PdfReader(root / pdf).pages)
        mine = [c for c in chunks if c["path"] == pdf]
        assert mine, pdf
        assert all(1 <= c["page"] <= c["end_page"] <= pages for c in mine), pdf
        assert mine[0]["page"] == 1 or pdf.startswith("en/Seige")
    assert max(c["end_page"] for c in chunks if c["path"] == "de/GeoTopo-komprimiert.pdf") > 100
    outcome = {f["path"]: f for f in report["published"]["failures"]}
    indexed = {c["path"] for c in chunks}
    for problem in (root / "_problem").iterdir():
        rel = f"_problem/{problem.name}"
        assert rel in indexed or (rel in outcome and outcome[rel]["reason"]), rel
    assert outcome["_problem/libreoffice-writer-password.pdf"]["reason"] == PASSWORD
    assert "no text layer" in outcome["_problem/git-no-text.pdf"]["reason"]
    stats = run_ingest(sift_env, "stats")
    assert "_problem/git-no-text.pdf: skipped at parse: no text layer" in stats.stdout


def test_same_stem_note_stands_for_its_pdf_and_links_are_recorded(immediate, tmp_path):
    source = need_data("pdf")
    root = tmp_path / "notes"
    write_tree(root, {
        "papers/multicolumn.md": "# Multicolumn (converted)\n\nThe converted text of the PDF.\n",
        "reading.md": "# Reading list\n\nSee [the doc](docs/google-doc-document.pdf) and [[multicolumn.pdf]].\n",
    })
    shutil.copy(source / "en/multicolumn.pdf", root / "papers/multicolumn.pdf")
    (root / "docs").mkdir()
    shutil.copy(source / "en/google-doc-document.pdf", root / "docs/google-doc-document.pdf")
    ingest(root)
    from workers import runtime
    conn = runtime.index()
    files = {r["path"]: r for r in reader.visible_files(conn)}
    assert "papers/multicolumn.pdf" not in files, "the same-stem conversion is indexed instead"
    assert "docs/google-doc-document.pdf" in files
    links = {(r["path"], r["target"]) for r in conn.execute(
        "SELECT f.path, l.target FROM links l JOIN files f ON f.id = l.file")}
    assert ("papers/multicolumn.md", "papers/multicolumn.pdf") in links
    assert ("reading.md", "docs/google-doc-document.pdf") in links
    assert ("reading.md", "multicolumn.pdf") in links

    from search.query.engine import Engine
    from search.query.filters import Filters
    import os
    from pathlib import Path
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    note_hit = engine.search("converted text", mode="keyword").hits[0]
    assert note_hit.path == "papers/multicolumn.md" and note_hit.attachments == ["papers/multicolumn.pdf"]
    pdf_hits = engine.search("document", mode="keyword", filters=Filters(kind="pdf")).hits
    assert pdf_hits and pdf_hits[0].path == "docs/google-doc-document.pdf"
    assert pdf_hits[0].cited_by == ["reading.md"]


def test_a_pdf_many_notes_cite_lists_the_first_twenty_and_the_count(immediate, tmp_path, monkeypatch):
    """A PDF thousands of notes cite would list them all on every hit (and a note citing thousands of PDFs
    all of those): each list holds the first 20 by path, with the total and where to find the rest."""
    from mcp_server import render
    from search.query.engine import Engine
    from search.query.filters import Filters
    import os
    from pathlib import Path
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    source = need_data("pdf")
    cap = 20  # as README's Tools table says
    many = cap + 5
    root = write_tree(tmp_path / "notes", {
        **{f"cites/n{i:02}.md": f"# Note {i}\n\nSee [[google-doc-document.pdf]].\n" for i in range(many)},
        "shelf.md": "# Bookshelf\n\n" + "".join(f"[p{i}](papers/p{i:02}.pdf) " for i in range(many)) + "\n",
    })
    (root / "docs").mkdir()
    shutil.copy(source / "en/google-doc-document.pdf", root / "docs/google-doc-document.pdf")
    ingest(root)
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    pdf_hit = engine.search("document", mode="keyword", filters=Filters(kind="pdf")).hits[0]
    assert pdf_hit.cited_by == [f"cites/n{i:02}.md" for i in range(cap)]
    assert pdf_hit.cited_by_total == many
    shelf = engine.search("bookshelf", mode="keyword").hits[0]
    assert shelf.attachments == [f"papers/p{i:02}.pdf" for i in range(cap)]
    assert shelf.attachments_total == many
    shown = "\n".join(render.hits_text([render.hit_data(pdf_hit), render.hit_data(shelf)]))
    assert f"(the first {cap} of {many} by path; search kind='note'" in shown
    assert f"(the first {cap} of {many} by path; read_file on the note" in shown
    data = render.hit_data(pdf_hit)
    assert len(data["cited_by"]) == cap and data["cited_by_total"] == many


def raw_pdf(objects: list[str], trailer: str = "") -> bytes:
    """A PDF of ``objects`` (numbered from 1, the first the catalog) with a correct xref table."""
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R {trailer}>>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def surrogate_pdf(words: str) -> bytes:
    """One page of ``words`` whose font's ToUnicode map sends 'A' to U+D800, a lone surrogate (not a character):
    pypdf's text then holds '\\ud800', which UTF-8 (SQLite, hashing, the queue) cannot encode."""
    cmap = ("/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /X def 1 begincodespacerange "
            "<00> <FF> endcodespacerange 1 beginbfchar <41> <D800> endbfchar endcmap CMapName currentdict /CMap "
            "defineresource pop end end")
    content = f"BT /F1 12 Tf 72 720 Td (A {words}) Tj ET"
    return raw_pdf([
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        f"<< /Length {len(content)} >>\nstream\n{content}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>",
        f"<< /Length {len(cmap)} >>\nstream\n{cmap}\nendstream"])


def test_a_file_whose_chunks_cannot_be_made_fails_alone(immediate, tmp_path):
    """The chunk stage made a file's rows (hashing their text) outside its per-file guard: a PDF whose text
    held a lone surrogate failed the whole job, and every note that shared it with the PDF failed too."""
    root = write_tree(tmp_path / "notes", {"koala.md": "# Koala\n\nThe koala sleeps in the gum tree.\n"})
    (root / "odd.pdf").write_bytes(surrogate_pdf("wombat burrows"))
    published = ingest(root)["published"]
    from workers import runtime
    files = {r["path"] for r in reader.visible_files(runtime.index())}
    assert "koala.md" in files, published["failures"]
    assert {f["path"] for f in published["failures"]} <= {"odd.pdf"}


def test_lone_surrogates_in_a_pdf_text_layer_are_replaced_and_the_pdf_indexed(immediate, tmp_path):
    """A text layer that maps a glyph to a lone surrogate is readable text around it: the PDF is indexed, the
    surrogate read as U+FFFD (a pair split over two map entries still makes its one character)."""
    from ingest.pdf import normalize
    assert normalize("a\ud800b \ud83d\ude00") == "a\ufffdb \U0001f600"
    root = tmp_path / "notes"
    root.mkdir()
    (root / "odd.pdf").write_bytes(surrogate_pdf("wombat burrows"))
    published = ingest(root)["published"]
    assert published["failures"] == []
    from search.query.engine import Engine
    from workers import runtime
    hits = Engine(runtime.settings().index_path).search("wombat", mode="keyword").hits
    assert [h.path for h in hits] == ["odd.pdf"] and "\ufffd" in hits[0].snippet


def test_a_pdf_linked_by_its_bare_name_is_listed_by_its_path(immediate, tmp_path, monkeypatch):
    """`[[paper.pdf]]` names a PDF by its file name: the note's hit lists it by its path in the collection, as
    it lists a Markdown link and as the PDF's own hit lists the note (it was listed as the bare name). A PDF
    whose same-stem note stands for it resolves too; a name no PDF has stays as written."""
    from search.query.engine import Engine
    import os
    from pathlib import Path
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    source = need_data("pdf")
    root = write_tree(tmp_path / "notes", {
        "reading/list.md": "# Reading list\n\n[[google-doc-document.pdf]], [[multicolumn.pdf|the columns]], "
                           "[[gone.pdf]]\n",
        "papers/multicolumn.md": "# Multicolumn (converted)\n\nThe converted text.\n",
    })
    shutil.copy(source / "en/google-doc-document.pdf", root / "papers/google-doc-document.pdf")
    shutil.copy(source / "en/multicolumn.pdf", root / "papers/multicolumn.pdf")
    ingest(root)
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    note = engine.search("reading list", mode="keyword").hits[0]
    assert note.path == "reading/list.md"
    assert note.attachments == ["gone.pdf", "papers/google-doc-document.pdf", "papers/multicolumn.pdf"]
    assert note.attachments_total == 3
    pdf = engine.search("document", mode="keyword", filters=Filters(kind="pdf")).hits[0]
    assert pdf.path == "papers/google-doc-document.pdf" and pdf.cited_by == ["reading/list.md"]


def paged_pdf(pages: list[str], catalog: str = "", info: str = "") -> bytes:
    """A PDF of one line of text per page, written as pdfTeX writes: the pages first, the page tree (and the
    cross-reference table, the trailer) at the end, so that a copy cut short keeps the pages without the tree.
    ``catalog``: more entries of the catalog; ``info``: the entries of its /Info dictionary."""
    tree = 3 + 2 * len(pages)
    objects = [f"<< /Type /Catalog /Pages {tree} 0 R {catalog}>>",
               "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    for i, text in enumerate(pages):
        content = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET"
        objects += [f"<< /Type /Page /Parent {tree} 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
                    "/Resources << /Font << /F1 2 0 R >> >> >>",
                    f"<< /Length {len(content)} >>\nstream\n{content}\nendstream"]
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>")
    if not info:
        return raw_pdf(objects)
    return raw_pdf(objects + [f"<< {info} >>"], trailer=f"/Info {len(objects) + 1} 0 R ")


def test_a_pdf_cut_short_indexes_the_pages_that_are_there_and_says_so(immediate, sift_env, tmp_path, monkeypatch):
    """A PDF whose end is missing (a download that did not finish) has no trailer, no cross-reference table and,
    as pdfTeX writes, no page tree: pypdf refused it whole ('Stream has ended unexpectedly'). Its pages are
    found among the objects that are there, indexed with their page numbers, and list_files says what was
    recovered; a file cut before its first page fails saying that none is left."""
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    whole = paged_pdf(["aardvark burrows at dusk", "pangolin scales overlap", "okapi stripes hide it"])
    root = tmp_path / "papers"
    root.mkdir()
    (root / "partial.pdf").write_bytes(whole[:whole.index(b"%d 0 obj" % 9)])  # cut before the page tree
    (root / "stub.pdf").write_bytes(whole[:whole.index(b"3 0 obj")])  # cut before the first page
    published = ingest(root)["published"]
    from search.query.engine import Engine
    from workers import runtime
    engine = Engine(runtime.settings().index_path)
    hit = engine.search("pangolin okapi", mode="keyword").hits[0]
    assert (hit.path, hit.page, hit.end_page) == ("partial.pdf", 2, 3)  # the pages of the words
    assert "**pangolin** scales overlap" in hit.snippet and "**okapi** stripes" in hit.snippet
    failures = {f["path"]: f["reason"] for f in published["failures"]}
    assert list(failures) == ["stub.pdf"] and "cut short" in failures["stub.pdf"], failures
    listed = run_ingest({**sift_env, "SIFT_EMBEDDINGS": "off"}, "files", "--sort", "path").stdout
    assert "partial.pdf  pdf" in listed and "indexed: cut short: no %%EOF at its end" in listed, listed
    assert "the text of 3 of the 3 pages found is indexed" in listed, listed


def test_a_note_says_which_of_its_pdfs_are_not_indexed_and_why(immediate, tmp_path, monkeypatch):
    """A note's hit listed a missing, failed or deleted PDF as any other attachment (and read_file on it said
    only 'no file'): each of those is now named with why, in the data and in the tool's text."""
    from mcp_server import render
    from search.query.engine import Engine
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    source = need_data("pdf")
    root = write_tree(tmp_path / "notes", {
        "reading.md": "# Reading list\n\n[ok](papers/good.pdf), [bad](papers/broken.pdf), [gone](papers/gone.pdf), "
                      "[old](papers/old.pdf), [[nowhere.pdf]], [[broken.pdf]]\n",
        "papers/broken.pdf": "<html>an error page saved as a PDF</html>\n",
    })
    shutil.copy(source / "en/google-doc-document.pdf", root / "papers/good.pdf")
    shutil.copy(source / "en/multicolumn.pdf", root / "papers/old.pdf")
    ingest(root)
    (root / "papers/old.pdf").unlink()
    ingest(root)
    hit = Engine(runtime.settings().index_path).search("reading list", mode="keyword").hits[0]
    assert hit.attachments == ["nowhere.pdf", "papers/broken.pdf", "papers/gone.pdf", "papers/good.pdf",
                               "papers/old.pdf"]
    why = hit.attachments_not_indexed
    assert list(why) == ["nowhere.pdf", "papers/broken.pdf", "papers/gone.pdf", "papers/old.pdf"]
    assert why["nowhere.pdf"] == "no PDF of that name is in the folder"
    assert why["papers/broken.pdf"].startswith("failed at parse: unreadable PDF: not a PDF")
    assert why["papers/gone.pdf"] == "not in the folder"
    assert why["papers/old.pdf"] == "deleted from the folder"
    shown = render.hits_text([render.hit_data(hit)])
    assert "   not indexed: notes/papers/gone.pdf (not in the folder)" in shown
    assert "papers/good.pdf" not in "".join(line for line in shown if "not indexed" in line)


def test_a_linked_pdf_the_scan_leaves_out_is_said_to_be_left_out(immediate, tmp_path, monkeypatch):
    """A note links to papers/secret.pdf, which a .gitignore keeps out of the index: its hit said 'not in the
    folder', and the user found the file right there. It says the scan leaves it out, and where to learn why."""
    from search.query.engine import Engine
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {
        "reading.md": "# Reading list\n\n[secret](papers/secret.pdf), [gone](papers/gone.pdf)\n",
        "papers/.gitignore": "secret.pdf\n",
    })
    (root / "papers/secret.pdf").write_bytes(paged_pdf(["pangolin scales overlap"]))
    ingest(root)
    why = Engine(runtime.settings().index_path).search("reading list", mode="keyword").hits[0].attachments_not_indexed
    assert why["papers/gone.pdf"] == "not in the folder"
    assert why["papers/secret.pdf"] == ("in the folder, but the scan leaves it out (SIFT_EXCLUDE, SIFT_INCLUDE or a "
                                        ".gitignore) or has not read it yet: read_file on it says which")


def test_a_linked_pdf_left_out_or_not_read_yet_is_told_which_when_the_index_knows(immediate, tmp_path, monkeypatch):
    """A note's link to a PDF in the folder that no scan recorded was told 'the scan leaves it out … or has not
    read it yet: read_file on it says which'. The index knows which when the newest scan began well after the
    file last changed, nothing waiting for a scan (that scan met it: left out), or began before it changed (no
    scan has met it yet); it says so, and both only when it cannot tell."""
    from search.query.engine import Engine
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {
        "reading.md": "# Reading list\n\n[secret](papers/secret.pdf), [new](papers/new.pdf)\n",
        "papers/.gitignore": "secret.pdf\n"})
    (root / "papers/secret.pdf").write_bytes(paged_pdf(["pangolin scales overlap"]))
    ingest(root)
    (root / "papers/new.pdf").write_bytes(paged_pdf(["armadillo bands"]))  # after the scan began
    engine = Engine(runtime.settings().index_path)
    why = lambda: engine.search("reading list", mode="keyword").hits[0].attachments_not_indexed  # noqa: E731
    assert why()["papers/new.pdf"].startswith("in the folder, but no scan has read it yet (it changed after the last "
                                              "scan began, ")
    assert why()["papers/new.pdf"].endswith(" ago; refresh queues one)")
    conn = runtime.index()
    conn.execute("UPDATE generations SET started = started + 30")  # the scan began well after secret.pdf was made
    conn.execute("UPDATE collections SET scan_started = scan_started + 30")
    assert why()["papers/secret.pdf"] == ("in the folder, but the scan leaves it out (SIFT_EXCLUDE, SIFT_INCLUDE or a "
                                          ".gitignore): read_file on it says why")
    conn.execute("UPDATE collections SET changes_noticed = 1")  # the watcher saw files change: a scan waits
    assert why()["papers/secret.pdf"] == ("in the folder, but the scan leaves it out (SIFT_EXCLUDE, SIFT_INCLUDE or a "
                                          ".gitignore) or has not read it yet: read_file on it says which")


def test_a_markdown_link_without_a_folder_is_the_pdf_beside_the_note(immediate, tmp_path, monkeypatch):
    """'[the paper](paper.pdf)' in reading/notes.md is reading/paper.pdf, but it was kept as a bare name, as
    '[[paper.pdf]]' is: the note listed every paper.pdf of the collection, and each was 'cited by' it. A wiki
    link with a folder, '[[lit/deep.pdf]]', is read from the collection's folder, as Obsidian writes it."""
    from search.query.engine import Engine
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    source = need_data("pdf")
    root = write_tree(tmp_path / "notes", {
        "reading/notes.md": "# Reading notes\n\nSee [the paper](paper.pdf) and [[lit/deep.pdf]].\n"})
    for pdf in ("reading/paper.pdf", "elsewhere/paper.pdf", "lit/deep.pdf", "reading/lit/deep.pdf"):
        (root / pdf).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source / "en/google-doc-document.pdf", root / pdf)
    ingest(root)
    engine = Engine(runtime.settings().index_path)
    note = engine.search("reading notes", mode="keyword").hits[0]
    assert note.path == "reading/notes.md"
    assert note.attachments == ["lit/deep.pdf", "reading/paper.pdf"] and note.attachments_not_indexed == {}
    cited = {h.path: h.cited_by for h in engine.search("document", mode="keyword", limit=20,
                                                        filters=Filters(kind="pdf")).hits}
    assert cited == {"reading/paper.pdf": ["reading/notes.md"], "elsewhere/paper.pdf": [],
                     "lit/deep.pdf": ["reading/notes.md"], "reading/lit/deep.pdf": []}


def test_a_pdf_hit_names_the_page_number_printed_on_it(immediate, tmp_path, monkeypatch):
    """A book numbers its front matter i, ii and its pages from 1 after it (its page labels): a hit on the 3rd
    page of the file said 'page 3' only, where the reader's copy says 1. It says 'page 3 (printed 1)' now, with
    'page' still what read_file takes; a PDF without labels shows no printed number."""
    from mcp_server import render
    from search.query.engine import Engine
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "papers"
    root.mkdir()
    words = ["preface acknowledges the wombat", "contents list the chapters", "chapter one on kangaroo jumps",
             "chapter two on emu eggs"]
    labels = "/PageLabels << /Nums [0 << /S /r >> 2 << /S /D >>] >> "
    (root / "book.pdf").write_bytes(paged_pdf(words, catalog=labels))
    (root / "plain.pdf").write_bytes(paged_pdf(["a plain kangaroo page", "more", "and more"]))
    ingest(root)
    engine = Engine(runtime.settings().index_path)
    hits = {h.path: h for h in engine.search("wombat kangaroo emu", mode="keyword").hits}
    book, plain = hits["book.pdf"], hits["plain.pdf"]
    assert (book.page, book.end_page, book.page_label, book.end_page_label) == (1, 4, "i", "2")
    assert render.place(render.hit_data(book)) == "pages 1-4 (printed i-2)"
    assert render.place(render.hit_data(plain)) == "page 1" and plain.page_label is None
    book = engine.search("kangaroo jumps", mode="keyword").hits[0]
    assert render.place(render.hit_data(book)) == "page 3 (printed 1)"


def test_a_pdf_hit_names_the_pages_its_words_are_on_not_all_the_passage_runs_over(immediate, tmp_path,
                                                                                monkeypatch):
    """A passage of a paper runs over a page break or two; its hit said 'pages 1-4' for a phrase on page 3 alone,
    to be looked for on four pages (16 of 20 quotes remembered from four papers came first so, each on one page).
    The hit names the pages that the words its snippet marks are on; words across a page break, both pages."""
    from mcp_server import render
    from search.query.engine import Engine
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "papers"
    root.mkdir()
    pages = ["Glacier fronts were mapped with a handheld receiver at the end of each melt season",
             "Stake readings were taken at twelve stakes per glacier and redrilled where melted out",
             "The flood carried away the footbridge used by the survey team since",
             "1998, when the gauging station below the glacier was built"]
    (root / "report.pdf").write_bytes(paged_pdf(pages))
    ingest(root)
    engine = Engine(runtime.settings().index_path)
    place = lambda query: render.place(render.hit_data(engine.search(query, mode="keyword").hits[0]))  # noqa: E731
    assert place("stake readings redrilled") == "page 2"
    assert place("flood carried away the footbridge") == "page 3"
    assert place("survey team since 1998") == "pages 3-4"
    hit = engine.search("handheld receiver", mode="keyword").hits[0]
    assert (hit.page, hit.end_page, hit.snippet.startswith("Glacier fronts")) == (1, 1, True)


def test_a_pdf_hit_by_meaning_alone_names_every_page_of_its_passage(immediate, tmp_path, embedder):
    """A hit found by meaning alone marks no word in its snippet: the passage as a whole matched, so it names all
    the pages the passage runs over (it named the page its snippet starts on, the first only)."""
    from search.query.engine import Engine
    from workers import runtime
    root = tmp_path / "papers"
    root.mkdir()
    pages = ["Glacier fronts were mapped with a handheld receiver at the end of each melt season. " * 4,
             "Stake readings were taken at twelve stakes per glacier and redrilled where melted out. " * 4]
    (root / "report.pdf").write_bytes(paged_pdf(pages))
    ingest(root)
    engine = Engine(runtime.settings().index_path, lambda: embedder)
    hit = engine.search("ice loss fieldwork in mountains", mode="semantic").hits[0]
    assert "**" not in hit.snippet, hit.snippet
    assert (hit.page, hit.end_page) == (1, 2), (hit.page, hit.end_page, hit.snippet)
    keyword = engine.search("stake readings", mode="keyword").hits[0]
    assert (keyword.page, keyword.end_page) == (2, 2)


def test_a_pdf_put_beside_an_indexed_note_of_its_name_is_attached_and_taken_away_when_gone(immediate, tmp_path,
                                                                                          monkeypatch):
    """A PDF saved beside platypus.md, the note already indexed, is the note's to stand for, so it is not indexed
    itself; but the note did not change, so the scan found nothing to do ('no changes'): the PDF was in no answer
    at all, neither indexed nor attached. Deleted again, the note kept listing it. The note is read again when
    its same-stem PDF comes or goes."""
    from search.query.engine import Engine
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    source = need_data("pdf")
    root = write_tree(tmp_path / "notes", {"reading/platypus.md": "# Platypus\n\nNotes on the platypus paper.\n"})
    ingest(root)

    def attachments() -> list[str]:
        return Engine(runtime.settings().index_path).search("platypus", mode="keyword").hits[0].attachments

    assert attachments() == []
    shutil.copy(source / "en/google-doc-document.pdf", root / "reading/platypus.Pdf")
    published = ingest(root)["published"]["id"]
    assert attachments() == ["reading/platypus.Pdf"]
    assert ingest(root)["published"]["id"] == published  # nothing changed since: no generation
    assert attachments() == ["reading/platypus.Pdf"]
    (root / "reading/platypus.Pdf").unlink()
    ingest(root)
    assert attachments() == []


@pytest.mark.parametrize("left_out", ["SIFT_EXCLUDE", ".gitignore", "SIFT_INCLUDE"])
def test_a_same_stem_pdf_the_scan_leaves_out_is_no_attachment_of_its_note(immediate, sift_env, tmp_path, monkeypatch,
                                                                          left_out):
    """paper.pdf beside paper.md, left out by SIFT_EXCLUDE='*.pdf' (or a .gitignore, or SIFT_INCLUDE='*.md'): the
    note's hit said 'attached PDF: paper.pdf', pointing to a file that search, list_files and read_file say is not
    indexed, and each scan found the note changed (the walk pairs only the files it takes) and published again."""
    from search.query.engine import Engine
    from workers import runtime, tasks
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    tree = {"paper.md": "# Paper notes\n\nThe okapi hides in the forest.\n", "other.md": "# Other\n\nnothing\n"}
    if left_out == ".gitignore":
        tree[".gitignore"] = "*.pdf\n"
    else:
        monkeypatch.setenv(left_out, "*.pdf" if left_out == "SIFT_EXCLUDE" else "*.md")
    runtime.reset()
    root = write_tree(tmp_path / "notes", tree)
    (root / "paper.pdf").write_bytes(paged_pdf(["pangolin scales overlap"]))
    first = ingest(root)
    hit = Engine(runtime.settings().index_path).search("okapi", mode="keyword").hits[0]
    assert hit.path == "paper.md" and hit.attachments == [] and hit.attachments_not_indexed == {}
    shown = run_ingest({**sift_env, "SIFT_EMBEDDINGS": "off"}, "search", "okapi").stdout
    assert "notes/paper.md" in shown and "paper.pdf" not in shown, shown
    tasks.discover(first["id"])
    from search.index import collection_reads
    assert collection_reads.get_collection(runtime.index(), first["id"])["published"] == first["published"]["id"], \
        "a scan of nothing changed publishes no generation"


def test_a_same_stem_pdf_linked_from_outside_the_root_is_no_attachment_of_its_note(immediate, tmp_path, monkeypatch):
    """paper.pdf beside paper.md, a symbolic link to a PDF outside the collection's folder, which the walk does not
    follow (skipped): the note was parsed with it as its attachment, the walk paired it with none, and each scan
    found the note changed and published again, as for a PDF SIFT_EXCLUDE leaves out."""
    from search.index import collection_reads
    from search.query.engine import Engine
    from workers import runtime, tasks
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "notes", {"paper.md": "# Paper notes\n\nThe okapi hides in the forest.\n",
                                           "other.md": "# Other\n\nnothing\n"})
    (tmp_path / "elsewhere.pdf").write_bytes(paged_pdf(["pangolin scales overlap"]))
    (root / "paper.pdf").symlink_to(tmp_path / "elsewhere.pdf")
    first = ingest(root)
    [refused] = first["published"]["failures"]
    assert (refused["path"], refused["state"]) == ("paper.pdf", "skipped") and "outside" in refused["reason"]
    hit = Engine(runtime.settings().index_path).search("okapi", mode="keyword").hits[0]
    assert hit.path == "paper.md" and hit.attachments == [], hit.attachments
    tasks.discover(first["id"])
    assert collection_reads.get_collection(runtime.index(), first["id"])["published"] == first["published"]["id"], \
        "a scan of the unchanged folder found the note changed"


def test_a_pdf_with_a_scanned_page_among_its_pages_of_text_says_which_page_has_no_text(immediate, tmp_path, servers,
                                                                                      sift_env, monkeypatch):
    """A report with a scanned map between its pages of text was listed as indexed like any other, and read_file
    of that page said '(no text on this page)': a quote from the map was nowhere, and nothing said why. list_files
    (and ingest files) name the pages without text, and read_file says what such a page is."""
    from tests.test_mcp_server import call, run, text
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "papers"
    root.mkdir()
    (root / "report.pdf").write_bytes(paged_pdf(["Storbreen retreated forty seven metres", "",
                                                 "The flood carried away the footbridge"]))
    (root / "plain.pdf").write_bytes(paged_pdf(["a page of text", "another page of text"]))
    ingest(root, "papers")

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            return (await call(s, "list_files", sort="path"),
                    await call(s, "read_file", path="papers/report.pdf", page=2))
    listed, page = run(scenario)
    files = {f["path"]: f for f in listed.structured_content["files"]}
    said = ("indexed: 1 of 3 pages without text (blank, or an image such as a scan: not read, so search does not "
            "find what it shows): page 2")
    assert said in text(listed) and files["papers/report.pdf"]["reason"] == said.removeprefix("indexed: ")
    assert "reason" not in files["papers/plain.pdf"], files
    assert "(no text on this page: blank, or an image such as a scan, which is not read)" in text(page)
    cli = run_ingest({**sift_env, "SIFT_EMBEDDINGS": "off"}, "files", "--sort", "path").stdout
    assert "report.pdf  pdf" in cli and said in cli, cli


def test_a_pdf_is_found_by_the_author_its_metadata_names(immediate, tmp_path, monkeypatch):
    """A lecture's slides name their course and topic but not their author, whom only the PDF's metadata names
    (/Author 'Maria Rossi'): 'Rossi slides' found nothing, though list_files and a PDF reader show who wrote it.
    The author is in the title column; a placeholder such as 'Microsoft Office User' is not."""
    from search.query.engine import Engine
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "slides"
    root.mkdir()
    for name, author in [("lecture03.pdf", "Maria Rossi"), ("lecture04.pdf", "Microsoft Office User")]:
        slides = ["Evaluation of retrieval", "Precision at k", "Pooling of runs"]
        (root / name).write_bytes(paged_pdf(slides, info=f"/Author ({author})"))
    ingest(root)
    engine = Engine(runtime.settings().index_path)
    assert [h.path for h in engine.search("Rossi", mode="keyword").hits] == ["lecture03.pdf"]
    assert engine.search("Maria Rossi pooling", mode="keyword").hits[0].path == "lecture03.pdf"
    assert engine.search("office user", mode="keyword").hits == []


def test_a_pdf_hit_shows_the_author_its_metadata_names_once_per_file(immediate, tmp_path, sift_env, servers,
                                                                     monkeypatch):
    """A search for 'Rossi' found Maria Rossi's slides, whose pages do not name her, with no word of why: the hit
    showed the file, its title and a snippet without her name. A PDF's first hit now says who wrote it, and each of
    its hits carries the author in the data; a later hit of the same file does not repeat it. A note whose front
    matter names its author shows it the same way; a note without one shows nothing more."""
    from tests.test_mcp_server import call, run, text
    root = write_tree(tmp_path / "course", {"reading.md": "# Reading\n\nPooling of runs, as Rossi explained.\n",
                                            # a note's front matter author is shown as a PDF's is
                                            "summary.md": "---\nauthor: Ana Lima\n---\n# Summary\n\nPooling runs.\n"})
    filler = " ".join(f"judged document {n} of the topic set, relevance graded by assessors" for n in range(20))
    slides = [f"Evaluation of retrieval {n}: pooling of runs. {filler}" for n in range(6)]  # a passage or more each
    (root / "lecture03.pdf").write_bytes(paged_pdf(slides, info="/Author (Maria Rossi)"))
    (root / "handout.pdf").write_bytes(paged_pdf(["Pooling of runs handout"],
                                                 info="/Author (Microsoft Office User)"))
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")  # searched by keyword: vectors are none of it
    ingest(root, "course")

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            return await call(s, "search", query="pooling runs", mode="keyword", limit=10)
    answer = run(scenario)
    hits = answer.structured_content["results"]
    assert {h["path"]: h.get("author") for h in hits} == {
        "course/lecture03.pdf": "Maria Rossi", "course/handout.pdf": None, "course/reading.md": None,
        "course/summary.md": "Ana Lima"}, hits
    assert sum(h["path"] == "course/lecture03.pdf" for h in hits) >= 2, hits
    shown = text(answer)
    assert shown.count("by Maria Rossi") == 1, shown  # '(by …)' after a title line; alone where the title is the name
    first = shown.index("course/lecture03.pdf")
    assert "by Maria Rossi" in shown[first:shown.index("\n", shown.index("\n", first) + 1)], shown
    assert "Microsoft Office User" not in shown, shown
    assert shown.count("by Ana Lima") == 1 and len(re.findall(r"(?:^ +|\()by ", shown, re.M)) == 2, shown
