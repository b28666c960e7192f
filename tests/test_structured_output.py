"""The tools' structuredContent through the real stdio client: what it carries per hit, and (once declared) that
every shape of answer a tool gives fits its outputSchema."""
from __future__ import annotations

import shutil

import pytest

from tests.conftest import built_once, ingest, need_data, write_tree
from tests.test_mcp_server import call, run, text

NOTES = {
    "tech/cooking.md": "# Cooking pasta\n\nBoil water, add salt, cook the spaghetti for nine minutes.\n",
    "tech/sauce.md": "# Tomato sauce\n\n## Garlic\n\nSimmer tomatoes with garlic and olive oil, then toss with the "
                     "cooked pasta.\n",
    "code/boil.py": "def boil_pasta(minutes: int) -> str:\n    \"\"\"Cook the spaghetti in salted water.\"\"\"\n"
                    "    return f'pasta cooked for {minutes} minutes'\n",
    "empty.md": "",
    "reading.md": "# Reading list\n\nThe [quarterly paper](paper.pdf) and the [lost draft](gone.pdf).\n",
}


PLAIN = {"plain.md": "Spaghetti without a heading, boiled in salted water.\n"}


def write_corpus(root):
    """NOTES, a code file and a PDF in ``root``."""
    write_tree(root, NOTES)
    shutil.copy(need_data("pdf/en/google-doc-document.pdf"), root / "paper.pdf")
    return root


def corpus(root, sift_env) -> dict:
    """NOTES, a code file and a PDF indexed (immediate mode) as collection 'notes'."""
    report = ingest(write_corpus(root), "notes")
    return {"env": {**sift_env, "SIFT_QUEUE_IMMEDIATE": "0"}, "generation": report["published"]["id"]}


@pytest.fixture(scope="module")
def read_only_home(tmp_path_factory, model_path):
    """The corpus and PLAIN indexed once for the tests that only read it (each built its own: 5-8 s each)."""
    return built_once(tmp_path_factory, model_path, lambda folder: ingest(write_tree(write_corpus(folder / "notes"),
                                                                                     PLAIN), "notes"))


@pytest.fixture
def shared_corpus(read_only_home, sift_env) -> dict:
    """``corpus``'s answer for ``read_only_home``."""
    from search.index import collection_reads, db
    conn = db.connect(read_only_home / "index.db")
    try:
        [notes] = collection_reads.collections(conn, "notes")
    finally:
        conn.close()
    return {"env": {**sift_env, "SIFT_QUEUE_IMMEDIATE": "0", "SIFT_HOME": str(read_only_home)},
            "generation": notes["published"]}


def test_hits_leave_out_what_their_path_and_the_answers_generations_say(shared_corpus, servers):
    """A hit's data repeated its collection and relative path (both in ``path``), the generation (the answer's
    ``generations`` says it once) and a heading path equal to its title: a search's data was about twice its
    text. They are left out; a heading path that says more than the title stays."""
    made = shared_corpus

    async def scenario():
        async with servers.session(made["env"], "--no-worker") as s:
            return (await call(s, "search", query="pasta tomatoes spaghetti", limit=10),
                    await call(s, "similar", path="notes/tech/cooking.md"),
                    await call(s, "list_files", sort="path"))
    found, like, listed = run(scenario)
    assert not found.is_error and not like.is_error, (text(found), text(like))
    # list_files' files likewise: 'path' says the collection and relative path (10.8 KB of data for 50 files)
    assert [f["path"] for f in listed.structured_content["files"]][:2] == ["notes/code/boil.py", "notes/empty.md"]
    assert not any({"collection", "relative_path"} & set(f) for f in listed.structured_content["files"])
    for answer in (found.structured_content, like.structured_content):
        assert answer["generations"] == {"notes": made["generation"]}
        assert answer["results"], answer
        for hit in answer["results"]:
            assert not {"collection", "relative_path", "generation"} & set(hit), hit
            assert hit["path"].startswith("notes/") and "chunk_id" in hit and "score" in hit
            assert hit.get("heading_path") != hit["title"], hit
    sauce = next(h for h in found.structured_content["results"] if h["path"] == "notes/tech/sauce.md")
    assert sauce["heading_path"] == "Tomato sauce > Garlic", sauce


# --- every shape of every tool's answer against the outputSchema it declares -------------------------------

def _checked(tools: dict, name: str, answer) -> dict:
    """An answer that is not an error, its structuredContent validated (again: the client did on the call)
    against the outputSchema the tool lists."""
    import jsonschema
    assert not answer.is_error, (name, text(answer))
    jsonschema.validate(answer.structured_content, tools[name].output_schema)
    return answer.structured_content


def _refused(tools: dict, name: str, data: dict) -> bool:
    import jsonschema
    try:
        jsonschema.validate(data, tools[name].output_schema)
    except jsonschema.ValidationError:
        return True
    return False


def _start_a_build(root, sift_env) -> None:
    """A generation of 'notes' being built with one added file waiting (no worker takes it), and a collection
    registered that nothing has scanned: the states stats, search and list_files report mid-build."""
    from search.index import collection_reads, store
    from workers import runtime
    (root / "tech/new.md").write_text("# New\n\nFresh pasta.\n", encoding="utf-8")
    conn = runtime.index()
    notes = collection_reads.collection_for_root(conn, str(root.resolve()))
    gen = store.begin_generation(conn, notes["id"], None)
    store.record_plan(conn, gen, notes["id"], {"tech/new.md": "added"}, {}, seen=len(NOTES) + 2)
    other = write_tree(root.parent / "other", {"x.md": "# X\n"})
    store.ensure_collection(conn, "other", str(other.resolve()))


def test_every_answer_of_every_tool_fits_the_output_schema_it_declares(immediate, tmp_path, sift_env, servers):
    """No tool declared an outputSchema, so a client could check no answer; one declared beside the code would
    reject every answer of a shape it missed (an empty result, a PDF hit, stats before anything is indexed).
    Each shape each tool gives goes through the real stdio client (which validates structuredContent against the
    declared schema) and through jsonschema again; errors stay errors (not validated, as the spec says)."""
    root = tmp_path / "notes"
    write_tree(root, {"a/todo.md": "# Todo A\n\nBuy stamps.\n", "b/todo.md": "# Todo B\n\nCall the plumber.\n"})
    made = corpus(root, sift_env)
    fresh_env = {**made["env"], "SIFT_HOME": str(tmp_path / "fresh-home")}

    async def scenario():
        out = {}
        async with servers.session(fresh_env, "--no-worker") as s:
            out["tools"] = {t.name: t for t in (await s.list_tools()).tools}
            out["stats nothing"] = await call(s, "stats")
        async with servers.session(made["env"], "--no-worker") as s:
            for label, name, args in (
                    ("search note", "search", {"query": "spaghetti", "mode": "keyword"}),
                    ("search code", "search", {"query": "boil_pasta", "kind": "code"}),
                    ("search pdf", "search", {"query": "document", "kind": "pdf", "mode": "semantic"}),
                    ("search links", "search", {"query": "quarterly lost draft", "mode": "keyword"}),
                    ("search none", "search", {"query": "zzzqqqxx", "mode": "keyword"}),
                    ("search misspelled", "search", {"query": "spagheti pasta"}),
                    ("search filtered", "search", {"query": "pasta", "path_prefix": "nowhere", "glob": "*.md"}),
                    ("read note", "read_file", {"path": "notes/tech/sauce.md"}),
                    ("read code", "read_file", {"path": "notes/code/boil.py", "start_line": 2}),
                    ("read empty", "read_file", {"path": "notes/empty.md"}),
                    ("read pdf", "read_file", {"path": "notes/paper.pdf"}),
                    ("read place", "read_file", {"path": "notes/tech/cooking.md:1-2"}),
                    ("read candidates", "read_file", {"path": "todo.md"}),
                    ("list", "list_files", {}),
                    ("list none", "list_files", {"glob": "*.zzz"}),
                    ("similar path", "similar", {"path": "notes/tech/cooking.md"}),
                    ("similar candidates", "similar", {"path": "todo.md"}),
                    ("stats", "stats", {}),
                    ("refresh", "refresh", {})):
                out[label] = (name, await call(s, name, **args))
            out["similar chunk"] = ("similar", await call(
                s, "similar", chunk_id=out["search note"][1].structured_content["results"][0]["chunk_id"]))
            out["errors"] = [await call(s, "search", query="x", collection="nope"),
                             await call(s, "read_file", path="../../etc/passwd"),
                             await call(s, "similar"), await call(s, "list_files", limit=0)]
            _start_a_build(root, sift_env)
            for label, name, args in (("stats building", "stats", {}), ("search building", "search", {"query": "pasta"}),
                                      ("list building", "list_files", {})):
                out[label] = (name, await call(s, name, **args))
        return out
    out = run(scenario)
    tools = out.pop("tools")
    assert set(tools) == {"search", "read_file", "list_files", "similar", "stats", "refresh"}
    assert all(t.output_schema and t.output_schema["type"] == "object" for t in tools.values()), tools
    assert all(e.is_error for e in out.pop("errors"))
    data = {"stats nothing": _checked(tools, "stats", out.pop("stats nothing"))}
    data |= {label: _checked(tools, name, answer) for label, (name, answer) in out.items()}

    assert data["stats nothing"]["collections"] == [] and "nothing" in data["stats nothing"]
    assert data["search note"]["results"][0]["kind"] == "note"
    assert data["search code"]["results"][0]["kind"] == "code"
    assert data["search pdf"]["results"][0]["page"] >= 1
    assert data["search pdf"]["results"][0]["cited_by"] == ["notes/reading.md"]
    linked = data["search links"]["results"][0]
    assert linked["attachments"] == ["notes/gone.pdf", "notes/paper.pdf"], linked
    assert list(linked["attachments_not_indexed"]) == ["notes/gone.pdf"], linked
    assert data["search none"]["results"] == [] and data["search none"]["unmatched"][0]["word"] == "zzzqqqxx"
    assert data["search filtered"]["notes"]
    assert data["read empty"]["total_lines"] == 0 and data["read pdf"]["pages"] >= 1
    assert len(data["read candidates"]["candidates"]) == 2 and data["similar candidates"]["total_candidates"] == 2
    assert data["list none"]["files"] == [] and data["similar chunk"]["results"]
    building = next(c for c in data["stats building"]["collections"] if c["name"] == "notes")["building"]
    assert building is not None
    fresh = {f["collection"]: f for f in data["search building"]["freshness"]}
    assert "building" in fresh["notes"] and fresh["other"]["published_generation"] is None
    # the schemas are not vacuous: a hit without its path, or a key no shape has, is refused
    hit = data["search note"]["results"][0]
    assert _refused(tools, "search", {**data["search note"], "results": [{k: v for k, v in hit.items() if k != "path"}]})
    assert _refused(tools, "read_file", {**data["read pdf"], "lines": []})


def test_the_output_schemas_carry_no_titles_that_repeat_key_names(servers, sift_env, tmp_path):
    """pydantic titles every key with its own name ('path': {'title': 'Path'}): 3.8 KB of the 12.9 KB the
    schemas add to tools/list, read at every session. A hit's key named title is still declared."""
    import json

    async def scenario():
        async with servers.session({**sift_env, "SIFT_HOME": str(tmp_path / "home")}, "--no-worker") as s:
            return {t.name: t.output_schema for t in (await s.list_tools()).tools}
    schemas = run(scenario)

    def titles(schema) -> int:
        if isinstance(schema, list):
            return sum(titles(part) for part in schema)
        if not isinstance(schema, dict):
            return 0
        return sum(1 for k, v in schema.items() if k == "title" and isinstance(v, str)) + sum(
            titles(v) for v in schema.values())
    assert {name: titles(schema) for name, schema in schemas.items() if titles(schema)} == {}
    assert "title" in schemas["search"]["$defs"]["Hit"]["properties"]
    # a PDF hit's author, footnotes_cited (10,492), a first build's part: its freshness' not_read_yet (+74), a data
    # file's hit its data_rows (+66: 10,632), a hit's sync conflict copies, or the note a copy copies (+180), and
    # whether that note matched too (+46: 10,946), a first scan walking the folder, its freshness' scanning (+450:
    # 11,396, its shape in the $defs of each answer that ends with the freshness line), a hit's dated: the date its
    # passage is about (+58: 11,454, in search's and similar's Hit), a saved message's thread, mail_thread (+155:
    # 11,609), the definitions a code file's '+N more' hides, more_in_file_names (+140: 11,749), a hit's file not
    # downloaded on this machine, not_downloaded (+78: 11,827)
    # … 11,617 at base-50; a freshness clause's details declared as objects, as stats' parts (-2,276), a list of
    # strings defined once where a schema has four (-186): 9,155
    assert sum(len(json.dumps(s)) for s in schemas.values()) < 9_400
    assert schemas["search"]["$defs"]["Freshness"]["properties"]["building"] == {"type": "object"}


def test_a_pdf_read_says_in_its_data_where_to_go_on_as_a_text_read_does(immediate, tmp_path, sift_env, servers):
    """A text file's data has next_start_line (null at the end); a PDF's had only the pages shown, and where to
    go on was in the text alone ('call read_file with page=3 …'): a client reading the data had to work it out."""
    root = write_tree(tmp_path / "notes", {"tech/cooking.md": NOTES["tech/cooking.md"]})
    shutil.copy(need_data("pdf/en/Seige_of_Vicksburg_Sample_OCR.pdf"), root / "siege.pdf")
    ingest(root, "notes")

    async def scenario():
        async with servers.session(sift_env, "--no-worker") as s:
            first = await call(s, "read_file", path="notes/siege.pdf", page=1)
            last = first.structured_content["pages"]
            return (first, await call(s, "read_file", path="notes/siege.pdf", page=last),
                    await call(s, "read_file", path="notes/tech/cooking.md"))
    first, last, note = run(scenario)
    pages = first.structured_content["pages"]
    assert pages > 1 and first.structured_content["next_page"] == 2, first.structured_content
    assert "call read_file with page=2" in text(first)
    assert last.structured_content["last_page_shown"] == pages and last.structured_content["next_page"] is None
    assert "next_page" in last.structured_content, "kept, as next_start_line is: null says it is the end"
    assert note.structured_content["next_start_line"] is None


def test_the_same_thing_has_the_same_key_in_every_answer(shared_corpus, servers):
    """A PDF hit before its first heading (and a note without one) carried ``heading_path: ""`` where other hits
    leave out what says nothing; a PDF read named its last page ``last_page_shown`` where hits and read_file's own
    arguments say ``end_page``; stats named a collection ``name`` where search's freshness says ``collection``."""
    made = shared_corpus

    async def scenario():
        async with servers.session(made["env"], "--no-worker") as s:
            return (await call(s, "search", query="document spaghetti", limit=50),
                    await call(s, "read_file", path="notes/paper.pdf", page=1, end_page=2),
                    await call(s, "stats"))
    found, read, stats = run(scenario)
    hits = found.structured_content["results"]
    assert {h["path"] for h in hits} >= {"notes/paper.pdf", "notes/plain.md"}, hits
    assert [h for h in hits if h.get("heading_path") == ""] == [], hits
    assert "heading_path" not in next(h for h in hits if h["path"] == "notes/plain.md")
    data = read.structured_content
    assert data["end_page"] == data["last_page_shown"] >= data["page"] == 1, data
    fresh = [f["collection"] for f in found.structured_content["freshness"]]
    assert [c["collection"] for c in stats.structured_content["collections"]] == fresh == ["notes"]
    assert [c["name"] for c in stats.structured_content["collections"]] == ["notes"]  # kept for those who read it
