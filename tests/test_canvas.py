"""Obsidian Canvas files (.canvas): they were not read at all (counted among 'kinds Sift does not read'), though
their text cards are notes a person wrote and their file cards link notes and PDFs. Now a canvas is a note: its
text cards searchable under the labels of the groups they lie in, at the line of the file that holds them, a group
without text by its label, and its file cards counted as links (a note's backlinks, a PDF's citing notes)."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from ingest.document import Skip
from ingest.parse import parse_file
from tests.conftest import ingest, ingest_keyword_only, need_data, write_tree
from tests.test_mcp_server import call, run, text

NODES = [
    {"id": "a1b2c3d4e5f60718", "type": "group", "x": -500, "y": -400, "width": 1000, "height": 800,
     "label": "Garden plans"},
    {"id": "b2c3d4e5f6071829", "type": "group", "x": -480, "y": -380, "width": 400, "height": 300, "label": "Shed"},
    {"id": "c3d4e5f60718293a", "type": "text", "x": -460, "y": -360, "width": 300, "height": 200,
     "text": "# Roof\n\nCorrugated iron sheets for the roof, #garden\n\nCosts in [[Budget]]."},
    {"id": "d4e5f60718293a4b", "type": "file", "file": "Projects/Garden Shed.md", "x": 0, "y": 0, "width": 300,
     "height": 200},
    {"id": "e5f60718293a4b5c", "type": "group", "x": 900, "y": -100, "width": 600, "height": 600,
     "label": "Timber sources"},
    {"id": "f60718293a4b5c6d", "type": "file", "file": "papers/timber.pdf", "x": 1000, "y": 0, "width": 300,
     "height": 200},
    {"id": "0718293a4b5c6d7e", "type": "link", "url": "https://example.com/larch", "x": 0, "y": 500, "width": 300,
     "height": 200},
    {"id": "18293a4b5c6d7e8f", "type": "text", "x": 600, "y": 600, "width": 200, "height": 100,
     "text": "Ask the sawmill about larch boards"},
]


def canvas(nodes=NODES) -> str:
    """A canvas as Obsidian writes it: tab-indented, each node and edge a line of JSON of its own."""
    def lines(items):
        return ",\n".join("\t\t" + json.dumps(item, ensure_ascii=False, separators=(",", ":")) for item in items)
    edges = [{"id": "293a4b5c6d7e8f90", "fromNode": "c3d4e5f60718293a", "fromSide": "right",
              "toNode": "d4e5f60718293a4b", "toSide": "left", "label": "builds"}]
    return "{\n\t\"nodes\":[\n" + lines(nodes) + "\n\t],\n\t\"edges\":[\n" + lines(edges) + "\n\t]\n}"


def test_a_canvas_is_its_text_cards_under_their_groups_at_their_lines_and_links_to_its_files():
    written = canvas()
    doc = parse_file("maps/Garden.canvas", written.encode())
    assert (doc.kind, doc.title) == ("note", "Garden")
    assert [(s.heading_path, s.text) for s in doc.sections] == [
        (["Garden plans", "Shed", "Roof"], NODES[2]["text"]),
        ([], "Timber sources"),  # a group of no text card: its label
        ([], "https://example.com/larch"),  # a link card: its URL (it was not read)
        ([], "Ask the sawmill about larch boards"),
        ([], "Roof → Garden Shed: builds")]  # an edge's label (it was not read), with the cards it joins
    lines = written.split("\n")
    for section, item in zip(doc.sections, (NODES[2], NODES[4], NODES[6], NODES[7], {"id": "293a4b5c6d7e8f90"})):
        assert section.start_line == section.end_line, section
        assert f'"id":"{item["id"]}"' in lines[section.start_line - 1], (section, item)
    body = "\n".join(s.text for s in doc.sections)
    assert '"x"' not in body and "a1b2c3d4" not in body
    assert doc.meta["links"] == ["/Projects/Garden%20Shed.md", "/papers/timber.pdf", "Budget"]
    assert doc.meta["tags"] == ["garden"]


def test_an_empty_canvas_is_an_empty_note_and_broken_json_says_so():
    made = [parse_file("new.canvas", empty) for empty in (b"", b"{}", b'{"nodes":[],"edges":[]}')]
    assert {(doc.kind, doc.title, len(doc.sections)) for doc in made} == {("note", "new", 0)}
    for broken, reason in ((b'{"nodes": [', "its JSON does not parse"), (b'{"nodes": {"a": 1}}', "no list of nodes"),
                           (b"[1, 2]", "no list of nodes")):
        with pytest.raises(Skip, match=f"^not a canvas: {reason}"):
            parse_file("bad.canvas", broken)


def test_a_link_card_and_an_edge_label_are_searched_under_their_groups(immediate, tmp_path):
    """A canvas's link cards (a URL) and its arrows' labels were not read: a canvas that says 'supersedes' only on an
    arrow, or names a page only by its URL, was not found by those words."""
    from search.query.engine import Engine
    nodes = [{"id": "grp1", "type": "group", "x": 0, "y": 0, "width": 900, "height": 900, "label": "Reading list"},
             {"id": "web1", "type": "link", "url": "https://en.wikipedia.org/wiki/Stigmergy", "x": 10, "y": 10,
              "width": 100, "height": 100},
             {"id": "txt1", "type": "text", "text": "Old plan", "x": 2000, "y": 0, "width": 100, "height": 100},
             {"id": "txt2", "type": "text", "text": "New plan", "x": 3000, "y": 0, "width": 100, "height": 100}]
    edges = [{"id": "edg1", "fromNode": "txt2", "toNode": "txt1", "label": "supersedes"}]
    written = json.dumps({"nodes": nodes, "edges": edges}, indent="\t")
    ingest_keyword_only(write_tree(tmp_path / "vault", {"Map.canvas": written, "Other.md": "# Other\n\nA plan.\n"}),
                        "vault")
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    for word, heading in (("stigmergy", "Reading list"), ("supersedes", "")):
        hits = engine.search(word, mode="keyword").hits
        assert [(h.path, h.heading_path) for h in hits] == [("Map.canvas", heading)], (word, hits)
    edge = engine.search("supersedes", mode="keyword").hits[0]
    assert '"id": "edg1"' in written.split("\n")[edge.start_line - 1], edge
    assert "New plan → Old plan: **supersedes**" in edge.snippet, edge.snippet  # what supersedes what


def test_an_edge_label_names_the_cards_it_joins_as_the_arrow_points():
    """An arrow's label was a passage of its own ('depends on', 'blocked by'), which says nothing of what depends on
    what: the passage names the two cards, a text card by its first line, a file card by its file's name, a link
    card by its URL, a group by its label, in the way the arrow points."""
    nodes = [{"id": "t1", "type": "text", "text": "\n## Ship the beta\n\nBy Friday."},
             {"id": "f1", "type": "file", "file": "Projects/Payments API.md"},
             {"id": "f2", "type": "file", "file": "papers/timber.pdf"},
             {"id": "l1", "type": "link", "url": "https://example.com/spec"},
             {"id": "g1", "type": "group", "label": "Backend", "x": 0, "y": 0, "width": 1, "height": 1},
             {"id": "t2", "type": "text", "text": "word " * 40}]
    edges = [{"id": "e1", "fromNode": "t1", "toNode": "f1", "label": "depends on"},
             {"id": "e2", "fromNode": "f2", "toNode": "l1", "fromEnd": "arrow", "toEnd": "none", "label": "cites"},
             {"id": "e3", "fromNode": "g1", "toNode": "t1", "fromEnd": "arrow", "label": "blocks"},
             {"id": "e4", "fromNode": "t1", "toNode": "g1", "toEnd": "none", "label": "same team"},
             {"id": "e5", "fromNode": "t1", "toNode": "gone", "label": "was split"},
             {"id": "e6", "fromNode": "t2", "toNode": "f2", "label": "long"}]
    doc = parse_file("Plan.canvas", json.dumps({"nodes": nodes, "edges": edges}, indent="\t").encode())
    joined = [s.text for s in doc.sections if s.text.endswith(tuple(e["label"] for e in edges))]
    assert joined == ["Ship the beta → Payments API: depends on", "https://example.com/spec → timber.pdf: cites",
                      "Backend ↔ Ship the beta: blocks", "Ship the beta — Backend: same team", "Ship the beta: was split",
                      " ".join(["word"] * 16)[:79] + "… → timber.pdf: long"], joined


def test_a_canvas_of_more_nodes_and_edges_than_sift_reads_is_skipped_saying_so(immediate, tmp_path, monkeypatch):
    """A hostile canvas of a million tiny cards (64 MiB) held its worker for minutes, each card parsed as a note
    (hours with as many groups, each card placed among them): one over MAX_ITEMS nodes and edges is skipped at
    once with the reason, recorded as a skipped file; the version indexed before stays searchable."""
    from ingest import canvas as module
    over = {"nodes": [{"id": f"n{i}", "type": "text", "text": f"card {i}", "x": i, "y": 0, "width": 1, "height": 1}
                      for i in range(20_000)], "edges": [{"id": "e0", "fromNode": "n0", "toNode": "n1"}]}
    with pytest.raises(Skip, match="^a canvas of 20,000 nodes and 1 edges, more than the 20,000 Sift reads in one "
                                   "canvas: none of its cards is indexed"):
        parse_file("huge.canvas", json.dumps(over).encode())
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "vault", {"Map.canvas": canvas(NODES[7:])})
    assert ingest(root, "vault")["published"]["failures"] == []
    monkeypatch.setattr(module, "MAX_ITEMS", 3)
    write_tree(root, {"Map.canvas": canvas(NODES)})
    published = ingest(root, "vault")["published"]
    assert [(f["path"], f["state"]) for f in published["failures"]] == [("Map.canvas", "skipped")], published
    assert published["failures"][0]["reason"].startswith("a canvas of 8 nodes and 1 edges, more than the 3 "), published


def test_a_big_canvas_places_each_card_in_its_groups_with_one_box_each(monkeypatch):
    """Each card's box was compared with each group's, recomputed each time: a 1 MB canvas of 4,000 cards in 4,000
    groups took 13 s to parse, growing with the square of its size (bench/canvas.py). Each
    box is now computed once (and compared in numpy), whatever the number of groups; the nesting is as before."""
    from ingest import canvas as module
    calls = [0]
    box = module._box

    def counted(node):
        calls[0] += 1
        return box(node)
    monkeypatch.setattr(module, "_box", counted)
    n = 300
    nodes = [{"id": "outer", "type": "group", "label": "All", "x": -10, "y": -10, "width": n * 10 + 20, "height": 30}]
    for i in range(n):
        nodes.append({"id": f"g{i}", "type": "group", "label": f"Box {i}", "x": i * 10, "y": 0, "width": 5, "height": 5})
        nodes.append({"id": f"t{i}", "type": "text", "text": f"card {i}", "x": i * 10 + 1, "y": 1, "width": 1,
                      "height": 1})
    doc = parse_file("big.canvas", canvas(nodes).encode())
    assert [s.heading_path for s in doc.sections if s.text == "card 7"] == [["All", "Box 7"]]
    assert len(doc.sections) == n + 1  # and the label of canvas()'s one edge
    assert calls[0] <= 3 * len(nodes), f"{calls[0]} boxes computed for {len(nodes)} nodes"


@pytest.mark.parametrize("card", [
    {"type": "text", "text": "card {i}"},
    {"type": "link", "url": "card {i}"},  # a link card's path was every group around it (two branches merged)
])
def test_deeply_nested_groups_do_not_multiply_the_canvas_in_its_heading_paths(card):
    """A card's heading path held every group around it: 300 groups one inside another, each with a card, made
    each card's path up to 300 labels long, stored and indexed with each of its passages (the labels' text ~150
    times over; a 1.5 MB canvas of 1,500 such groups with 500-character labels, about 1 GB). It is shortened as a
    deep code definition's is: the three outermost groups, '…' and the four innermost."""
    n = 300
    label = "group label " * 8
    nodes = [{"id": f"g{i}", "type": "group", "label": f"{label}{i}", "x": -i * 10, "y": -i * 10,
              "width": i * 20 + 100, "height": i * 20 + 100} for i in range(n)]
    nodes += [{"id": f"t{i}", **{key: value.format(i=i) for key, value in card.items()}, "x": -i * 10 + 1,
               "y": -i * 10 + 1, "width": 50, "height": 50} for i in range(n)]
    data = canvas(nodes).encode()
    doc = parse_file("deep.canvas", data)
    assert len(doc.sections) == n + 1, "each card a passage (and the edge's label), no group a label of its own"
    stored = sum(len(" > ".join(s.heading_path)) for s in doc.sections)
    assert stored <= 6 * len(data), f"{stored} characters of heading paths from a canvas of {len(data)} bytes"
    paths = {s.text: s.heading_path for s in doc.sections}
    assert paths["card 0"][-1] == f"{label}0", "the group nearest the card last"
    assert paths["card 2"] == [*(f"{label}{i}" for i in (299, 298, 297)), "…", *(f"{label}{i}" for i in (5, 4, 3, 2))]
    assert paths["card 292"] == [f"{label}{i}" for i in range(299, 291, -1)], "eight groups are kept whole"
    assert paths["card 299"] == [f"{label}299"]


def test_a_canvas_is_searched_and_linked_as_a_note_is(immediate, tmp_path, servers, sift_env, monkeypatch):
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "vault", {
        "maps/Garden.canvas": canvas(),
        "Projects/Garden Shed.md": "# Garden Shed\n\nA shed at the end of the garden.\n",
        # a canvas beside a PDF of its name lays cards out: it does not stand for the PDF, as a note of its name does
        "papers/timber.canvas": canvas(NODES[7:]),
        "Budget.md": "# Budget\n\nNothing spent yet.\n"})
    shutil.copy(need_data("pdf/en/google-doc-document.pdf"), root / "papers" / "timber.pdf")
    published = ingest(root, "vault")["published"]
    assert published["failures"] == [] and ".canvas" not in published["unread"], published

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            return [await call(s, "search", query="corrugated iron roof", mode="keyword"),
                    await call(s, "search", query="timber sources", mode="keyword", kind="note"),
                    await call(s, "search", query="document", mode="keyword", kind="pdf"),
                    await call(s, "read_file", path="vault/Projects/Garden Shed.md"),
                    await call(s, "read_file", path="Budget.md")]
    roof, group, pdf, shed, budget = run(scenario)
    hit = roof.structured_content["results"][0]
    assert (hit["path"], hit["title"], hit["heading_path"], hit["kind"]) == (
        "vault/maps/Garden.canvas", "Garden", "Garden plans > Shed > Roof", "note"), text(roof)
    assert '"id":"c3d4e5f60718293a"' in canvas().split("\n")[hit["start_line"] - 1], hit
    assert hit["start_line"] == hit["end_line"], hit
    assert group.structured_content["results"][0]["path"] == "vault/maps/Garden.canvas", text(group)
    assert [h["path"] for h in pdf.structured_content["results"]] == ["vault/papers/timber.pdf"], text(pdf)
    assert pdf.structured_content["results"][0]["cited_by"] == ["vault/maps/Garden.canvas"], text(pdf)
    assert text(shed).endswith("\n[linked from 1 note: vault/maps/Garden.canvas]"), text(shed)
    assert text(budget).endswith("\n[linked from 1 note: vault/maps/Garden.canvas]"), text(budget)


@pytest.mark.parametrize("card", [{"type": "text", "text": "the innermost card"},
                                  {"type": "link", "url": "https://example.com/innermost"}])
def test_a_group_shortened_out_of_a_cards_path_keeps_its_label_searchable(card):
    """A group whose label is in a card's heading path makes no passage of its own; a card nine groups deep has its
    path shortened (the three outermost, '…', the four innermost), so the two groups in the middle were in no
    heading path and no passage: 'Ferns' and 'Mosses' (said only as their groups' labels) found nothing."""
    labels = ["Garden", "North beds", "Shade", "Ferns", "Mosses", "Pots", "Bench", "Shelf", "Tray"]
    nodes = [{"id": f"g{i}", "type": "group", "label": label, "x": i * 10, "y": i * 10,
              "width": 1000 - i * 20, "height": 1000 - i * 20} for i, label in enumerate(labels)]
    nodes.append({"id": "card", **card, "x": 200, "y": 200, "width": 50, "height": 50})
    doc = parse_file("deep.canvas", canvas(nodes).encode())
    said = [" ".join([*s.heading_path, s.text]) for s in doc.sections]
    assert any("…" in s.heading_path for s in doc.sections), "the card's path is shortened"
    missing = [label for label in labels if not any(label in words for words in said)]
    assert not missing, f"{missing} are in no passage's text or heading path: {said}"


def test_an_index_of_canvases_cut_by_chunker_13_reads_them_again(immediate, tmp_path, monkeypatch):
    """Chunker 13 (base-16 and base-17) kept every group around a link card in its heading path (base-16) and an
    arrow's label alone: an index made so kept both for every canvas until it changed. Chunker 14 reads every file
    again: the link card's path shortened, the arrow's passage naming its cards, nothing else embedded again."""
    from ingest import canvas as canvas_module, chunk
    from search.query.engine import Engine
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    nodes = [{"id": f"g{i}", "type": "group", "label": f"Box {i}", "x": -i * 10, "y": -i * 10,
              "width": 100 + i * 20, "height": 100 + i * 20} for i in range(12)]
    nodes += [{"id": "web1", "type": "link", "url": "https://en.wikipedia.org/wiki/Stigmergy", "x": 10, "y": 10,
               "width": 10, "height": 10},
              {"id": "txt1", "type": "text", "text": "Old plan", "x": 2000, "y": 0, "width": 100, "height": 100},
              {"id": "txt2", "type": "text", "text": "New plan", "x": 3000, "y": 0, "width": 100, "height": 100}]
    edges = [{"id": "edg1", "fromNode": "txt2", "toNode": "txt1", "label": "supersedes"}]
    vault = write_tree(tmp_path / "vault", {"Map.canvas": json.dumps({"nodes": nodes, "edges": edges}, indent="\t")})
    with monkeypatch.context() as older:
        older.setattr(chunk, "VERSION", 13)
        older.setattr(canvas_module, "_path", lambda around: [canvas_module._label(g) for g in around])
        older.setattr(canvas_module, "AROUND", len(nodes))  # every group around a card, as chunker 13 gathered
        older.setattr(canvas_module, "_edge", lambda edge, label, by_id: label)
        ingest(vault, "vault")
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    assert engine.search("stigmergy", mode="keyword").hits[0].heading_path.count(" > ") == 11  # as chunker 13 left it
    report = ingest(vault, "vault")["published"]
    assert report["changes"] == {"changed": 1}, report
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")
    link = engine.search("stigmergy", mode="keyword").hits[0]
    assert link.heading_path == "Box 11 > Box 10 > Box 9 > … > Box 3 > Box 2 > Box 1 > Box 0", link.heading_path
    assert "New plan → Old plan" in engine.search("supersedes", mode="keyword").hits[0].snippet


def test_an_arrow_names_a_card_in_a_few_words_however_long_the_card():
    """Each arrow's passage names the cards it joins: a link card's URL, a file card's name and a group's label
    were named whole, so a canvas of 200 arrows from one card with a 100 KB URL (a data: URL pasted on a canvas;
    the file is 100 KB and 200 short lines) read as 20 MB of passages, 20,000 items as gigabytes held by the
    worker. A card is named in at most NAMED characters, as a text card was; its own passage keeps it whole."""
    from ingest.canvas import NAMED
    url = "https://example.org/" + "a" * 100_000
    canvas = {"nodes": [{"id": "big", "type": "link", "url": url, "x": 0, "y": 0, "width": 10, "height": 10},
                        {"id": "grp", "type": "group", "label": "Group " + "g" * 5000, "x": 500, "y": 500,
                         "width": 10, "height": 10},
                        {"id": "doc", "type": "file", "file": "notes/" + "f" * 5000 + ".md", "x": 900, "y": 900,
                         "width": 10, "height": 10}],
              "edges": [{"id": f"e{i}", "fromNode": "big", "toNode": ["grp", "doc"][i % 2], "label": f"step {i}"}
                        for i in range(200)]}
    doc = parse_file("board.canvas", json.dumps(canvas, indent=1).encode())
    arrows = [s.text for s in doc.sections if ": step " in s.text]
    assert len(arrows) == 200
    assert max(len(a) for a in arrows) <= 2 * NAMED + 20, max(len(a) for a in arrows)
    assert arrows[0].startswith("https://example.org/aaa") and "→ Group ggg" in arrows[0], arrows[0][:300]
    assert any(s.text == url for s in doc.sections), "the link card's own passage keeps its URL whole"
