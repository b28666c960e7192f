"""This round's new kinds (slide decks, spreadsheets, Logseq pages) as an assistant meets them through the MCP
tools: what list_files, read_file and search say of them (huey in immediate mode, the tools called in-process)."""
from __future__ import annotations

import pytest

from tests.conftest import ingest, write_tree
from tests.test_slides import impress, lecture


def test_a_pdf_two_decks_of_its_name_stand_for_is_listed_once(immediate, tmp_path, monkeypatch):
    """lecture.pdf beside lecture.pptx and lecture.odp (the deck saved in both formats) was listed twice, '5 files
    match' of 4, each row naming another deck: once now, naming the first by path, as read_file does."""
    from mcp_server import reading
    from mcp_server.errors import Problem
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "work", {"notes/plan.md": "# Plan\n\nThe ferry runs hourly.\n"})
    (root / "talks").mkdir()
    (root / "talks/lecture.pptx").write_bytes(lecture())
    (root / "talks/lecture.odp").write_bytes(impress())
    (root / "talks/lecture.pdf").write_bytes(b"%PDF-1.4\n%%EOF\n")
    assert ingest(root, "work")["published"]["failures"] == []
    tools = Tools(Sift(load()))
    for args in ({}, {"glob": "talks/*"}):  # counted and listed by two queries, or from the stored matches
        listed = tools.list_files(**args).structured_content
        pdfs = [f for f in listed["files"] if f["path"] == "work/talks/lecture.pdf"]
        assert len(pdfs) == 1, (args, pdfs)
        assert pdfs[0]["reason"].startswith("not indexed itself: the slide deck work/talks/lecture.odp beside it"), pdfs
        assert listed["total"] == len(listed["files"]) == (3 if args else 4), listed
    with pytest.raises(Problem, match="the slide deck work/talks/lecture.odp beside it"):
        reading.read(Sift(load()), "work/talks/lecture.pdf", None, None, 1)


def test_a_link_to_a_slide_or_a_message_reads_it_as_heading_does(immediate, tmp_path, monkeypatch):
    """read_file('[[lecture.pptx#Slide 2]]') said 'has no heading 'Slide 2'' where heading='Slide 2' read the slide
    (its heading is 'Slide 2: Precision', which a link matched only in full); '[[orders.mbox#Your order]]' looked
    for a '# Your order' line in the raw mailbox. Both read the headings Sift made, as heading= does."""
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "work", {"mail/orders.mbox": (
        "From a@b Thu Jan 01 00:00:00 2025\nFrom: Shop <shop@example.com>\nSubject: Your order\n\nGarden gloves.\n\n"
        "From a@b Fri Jan 02 00:00:00 2025\nFrom: Shop <shop@example.com>\nSubject: Shipped\n\nOn its way.\n"),
        "notes/plan.md": "# Plan\n\n## Ferry\n\nThe ferry runs hourly.\n"})
    (root / "talks").mkdir()
    (root / "talks/lecture.pptx").write_bytes(lecture())
    assert ingest(root, "work")["published"]["failures"] == []
    tools = Tools(Sift(load()))
    for link in ("[[lecture.pptx#Slide 2]]", "[[lecture.pptx#Precision]]", "[[lecture.pptx#Slide 2: Precision]]"):
        read = tools.read_file(path=link)
        assert not read.is_error and (read.structured_content["start_line"], read.structured_content["end_line"]) \
            == (3, 9), (link, read.content[0].text)
    with pytest.raises(Exception, match="several headings holding 'Slide': 'Slide 1: Evaluating"):
        tools.read_file(path="[[lecture.pptx#Slide]]")
    # a slide no link names: its slides listed, as heading= lists them (it said '… shows the whole note' of a deck)
    with pytest.raises(Exception) as refused:
        tools.read_file(path="[[lecture.pptx#Budget]]")
    said = str(refused.value)
    assert "no heading 'Budget'; its headings: 'Slide 1: Evaluating" in said and "'Slide 2: Precision'" in said, said
    assert "shows the whole file" in said and "note" not in said, said
    with pytest.raises(Exception, match=r"no heading 'Budget'; its headings: 'Plan', 'Ferry': read_file "
                                        r"'work/notes/plan.md' shows the whole note"):
        tools.read_file(path="[[plan#Budget]]")
    read = tools.read_file(path="[[orders.mbox#Your order]]")
    assert not read.is_error and (read.structured_content["start_line"], read.structured_content["end_line"]) \
        == (1, 5), read.content[0].text


def test_an_untitled_deck_of_topics_is_titled_by_its_name_not_its_first_topic(immediate, tmp_path, monkeypatch):
    """A deck with no title of its own was titled by its first slide's title, a title slide or not: every passage of
    a deck of 30 topics was headed 'Topic 1 > Slide 30: Topic 30', as if slide 30 were part of the first topic, and
    search and similar showed it so. Its title is the file's name now; a title slide's title still titles a deck."""
    from ingest.parse import parse_file
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    from tests.test_slides import frame, opendocument, pptx, shape, slide
    topics = pptx([(slide([shape([f"Topic {n}"], "title"), shape([f"Point {n} about the harbour"], "")]), None)
                   for n in range(1, 31)])
    opened = pptx([(slide([shape(["Harbour works"], "ctrTitle"), shape(["Spring 2026"], "subTitle")]), None),
                   (slide([shape(["Dredging"], "title"), shape(["Silt removal"], "")]), None)])
    assert parse_file("talks/harbour-topics.pptx", topics).title == "harbour-topics"
    assert parse_file("talks/works.pptx", opened).title == "Harbour works"
    impress = opendocument("application/vnd.oasis.opendocument.presentation", "<office:presentation>"
                           '<draw:page draw:name="p1">' + frame(["Harbour works"], "title") + frame(["2026"], "subtitle")
                           + '</draw:page><draw:page draw:name="p2">' + frame(["Dredging"], "title")
                           + frame(["Silt removal"], "outline") + "</draw:page></office:presentation>")
    assert parse_file("talks/works.odp", impress).title == "Harbour works"
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "work"
    (root / "talks").mkdir(parents=True)
    (root / "talks/harbour-topics.pptx").write_bytes(topics)
    assert ingest(root, "work")["published"]["failures"] == []
    hit = Tools(Sift(load())).search(query="point 30 harbour", mode="keyword").structured_content["results"][0]
    assert (hit["title"], hit["heading_path"]) == ("harbour-topics", "harbour-topics > Slide 30: Topic 30"), hit


def test_a_logseq_journals_hits_are_titled_by_its_date_as_logseq_shows_it(immediate, tmp_path, monkeypatch):
    """A journal's hits were titled by its file's name, '2024_03_14', which Logseq shows nowhere: 'Mar 14th, 2024',
    the name its links use. A page's title:: and a daily note of another folder or form keep theirs."""
    from ingest.markdown import parse_markdown
    from mcp_server.service import Sift
    from mcp_server.tools import Tools
    from search.settings import load
    assert parse_markdown("journals/2024_03_14.md", "- Met Alice\n").title == "Mar 14th, 2024"
    assert parse_markdown("journals/2024_03_14.md", "title:: Harbour day\n\n- Met Alice\n").title == "Harbour day"
    assert parse_markdown("daily/2024-03-14.md", "- Met Alice\n").title == "2024-03-14"
    assert parse_markdown("pages/2024_03_14.md", "- Met Alice\n").title == "2024_03_14"
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "graph", {"journals/2024_03_14.md": "- Asked Bob about the compost heap\n",
                                           "pages/Garden.md": "- See [[Mar 14th, 2024]]\n"})
    assert ingest(root, "graph")["published"]["failures"] == []
    hit = Tools(Sift(load())).search(query="compost heap", mode="keyword").structured_content["results"][0]
    assert (hit["path"], hit["title"]) == ("graph/journals/2024_03_14.md", "Mar 14th, 2024"), hit
