"""A minified bundle's stack frame read through its source map, to the source file and line it was built from."""
from __future__ import annotations

import base64
import json
from urllib.parse import quote

import pytest

from search.query import source_maps
from search.query.engine import Engine
from tests.conftest import in_home, tree_built_once
from tests.source_map_writer import mappings

def _function(name: str, words: str) -> str:
    """A TypeScript function of a dozen lines (a passage of its own), saying ``words``."""
    body = [f"  const step{i} = compute_{name}_{i}(user, {i}); // {words} step {i}" for i in range(10)]
    return "\n".join([f"export function {name}(user: User): string {{", f"  // {name}: {words}.", *body,
                      "  return step9;", "}"])


PROFILE = _function("displayName", "the name a user shows") + "\n\n" + _function("avatarUrl", "the picture of a user")
CART = _function("cartTotal", "the sum of a cart's lines")
# The bundle's one line: displayName from column 0, cartTotal from 30,000, avatarUrl (line 18 of profile.ts) from
# 48,200; a second line of the bundle maps back to cartTotal.
MAP = {"version": 3, "file": "main.js", "sourceRoot": "",
       "sources": ["../src/users/profile.ts", "webpack://shop/./src/orders/cart.ts"],
       "sourcesContent": [PROFILE, CART], "names": [],
       "mappings": mappings([[(0, 0, 0, 0), (120, 0, 3, 2), (30000, 1, 4, 2), (48200, 0, 17, 2), (48300, 0, 20, 4)],
                             [(10, 1, 9, 2)]])}
# The map naming the original names ('names', a segment's fifth number): the call at 30,000 (a frame's caller)
# calls avatarUrl; at 48,200, line 4 of profile.ts (in displayName: the code changed since the build), 'picture' is
# read. The names are the map's, the bundle's function names ('e', 't') minified.
NAMED = {**MAP, "names": ["avatarUrl", "picture"],
         "mappings": mappings([[(0, 0, 0, 0), (30000, 1, 4, 2, 0), (48200, 0, 3, 2, 1)]])}
BUNDLE = "!function(e){" + "var a=1;" * 8000 + "}();\n"
INLINE = "//# sourceMappingURL=data:application/json;charset=utf-8;base64,"
TREE = {
    "src/users/profile.ts": PROFILE + "\n",
    "src/orders/cart.ts": CART + "\n",
    "notes/errors.md": "# Undefined user\n\nCannot read properties of undefined (reading 'picture'): the user was "
                       "undefined, a user's picture undefined; reading properties of an undefined user.\n",
    "dist/main.js": "!function(e){" + "var a=1;" * 8000 + "}();\n//# sourceMappingURL=main.js.map\n",
    "dist/main.js.map": json.dumps(MAP),
    # a bundle of eight lines, each mapped to a line of profile.ts or cart.ts (from column 0) and of the other (100)
    "dist/app.js.map": json.dumps({**MAP, "mappings": mappings([[(0, i % 2, i, 0), (100, 1 - i % 2, 20 - i, 0)]
                                                                 for i in range(8)])}),
    # a bundle whose map is in another folder, named on its last line
    "dist/web/shop.js": "!function(e){" + "var a=1;" * 8000 + "}();\n//# sourceMappingURL=../../maps/shop.js.map\n",
    "maps/shop.js.map": json.dumps(MAP),
    "dist/named.js.map": json.dumps(NAMED),
    # a bundle with its map written in its last line; one naming its map on a server
    "dist/inline.js": BUNDLE + INLINE + base64.b64encode(json.dumps(MAP).encode()).decode() + "\n",
    "dist/served.js": BUNDLE + "//# sourceMappingURL=https://cdn.example.com/served.js.map\n",
}
TRACE = ("TypeError: Cannot read properties of undefined (reading 'picture')\n"
         "    at e (https://shop.example.com/dist/main.js:1:48213)\n"
         "    at Object.t [as render] (https://shop.example.com/dist/main.js:2:15)")


@pytest.fixture
def engine_over(tmp_path_factory, model_path, embedder, monkeypatch):
    def over(files: dict[str, str]) -> Engine:
        engine = Engine(in_home(tree_built_once(tmp_path_factory, model_path, files, "notes"), model_path,
                                monkeypatch), lambda: embedder)
        engine.warm()
        return engine
    return over


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_minified_frame_is_found_at_the_source_its_map_names(engine_over, mode):
    """'main.js:1:48213' is a column of the bundle's one line, which Sift skips (dist/ is a build's): it found
    nothing, and the trace's words ranked the note about undefined users first. The map beside the bundle names
    the source and line: avatarUrl in profile.ts, then cartTotal in cart.ts (a bundler's 'webpack://' source)."""
    answer = engine_over(TREE).search(TRACE, mode=mode)
    assert [(hit.path, hit.heading_path.split(" > ")[-1]) for hit in answer.hits[:2]] == [
        ("src/users/profile.ts", "avatarUrl"), ("src/orders/cart.ts", "cartTotal")], answer.notes
    assert ("the stack trace's frames main.js:1:48213 is src/users/profile.ts:18 by its source map dist/main.js.map; "
            "main.js:2:15 is src/orders/cart.ts:10 by its source map dist/main.js.map") in answer.notes, answer.notes
    assert not any("minified code" in said for said in answer.notes), answer.notes


@pytest.mark.parametrize("mode", ["keyword"])
def test_a_minified_frame_without_its_map_is_said_to_be_minified(engine_over, mode):
    files = {path: text for path, text in TREE.items() if not path.endswith(".map")}
    answer = engine_over(files).search(TRACE, mode=mode)
    assert any(said.startswith("the stack trace's frames main.js:1:48213 are in minified code")
               for said in answer.notes), answer.notes
    assert not any("source map dist/main.js.map" in said for said in answer.notes), answer.notes


def test_where_a_map_says_a_place_of_the_bundle_comes_from(tmp_path):
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "main.js.map").write_text(json.dumps(MAP))
    roots = [("shop", str(tmp_path))]
    at = source_maps.original(roots, "https://shop.example.com/dist/main.js", 1, 48213)
    assert (at.source, at.line, at.map_path, at.candidates) == (
        "src/users/profile.ts", 18, "dist/main.js.map", ["shop/src/users/profile.ts", "src/users/profile.ts"])
    assert source_maps.original(roots, "/srv/dist/main.js", 1, 48301).line == 21  # the last segment before it
    assert source_maps.original(roots, "/srv/dist/main.js", 1, 1).line == 1
    cart = source_maps.original(roots, "dist/main.js", 2, 11)
    assert (cart.source, cart.line, cart.candidates[:2]) == ("src/orders/cart.ts", 10,
                                                             ["shop/dist/src/orders/cart.ts", "shop/src/orders/cart.ts"])
    assert source_maps.original(roots, "dist/main.js", 3, 1) is None  # no such line: nothing mapped
    assert source_maps.original(roots, "dist/other.js", 1, 1) is None  # no map beside it


def test_a_map_too_big_or_of_other_maps_is_not_read(tmp_path, monkeypatch):
    """A map of tens of megabytes is mostly its sources' text: it is read where its keys are, never whole, and
    one over MAX_MAP_BYTES is not read at all (said so); nor an index map's section naming a map that is not there."""
    (tmp_path / "big.js.map").write_text(json.dumps({**MAP, "sourcesContent": [PROFILE * 1000, CART]}))
    assert source_maps.original([("c", str(tmp_path))], "big.js", 1, 48213).line == 18
    monkeypatch.setattr(source_maps, "MAX_MAP_BYTES", 2**20)
    with pytest.raises(source_maps.Refused, match="the source map big.js.map is over 1 MB and was not read"):
        source_maps.original([("c", str(tmp_path))], "big.js", 1, 1)
    monkeypatch.undo()
    (tmp_path / "index.js.map").write_text(json.dumps({"version": 3, "sections": [{"offset": {"line": 0, "column": 0},
                                                                                    "url": "a.js.map"}]}))
    with pytest.raises(source_maps.Refused, match="section 'a.js.map' names no map in the collection"):
        source_maps.original([("c", str(tmp_path))], "index.js", 1, 1)
    monkeypatch.setattr(source_maps, "MAX_MAPPINGS_READ", 8)
    monkeypatch.setattr(source_maps, "CHUNK", 16)
    with pytest.raises(source_maps.Refused, match="mappings before the frame are over"):
        source_maps.original([("c", str(tmp_path))], "big.js", 1, 48213)


NAMES = [f"name{i}" for i in range(40)]


def _random_map(rng, path) -> list:
    """A map of 30 lines of random segments (column, source, line, column, and a name of NAMES in one of three)
    over three sources, written at ``path``; the segments by line."""
    lines = []
    for _ in range(30):
        column, segments = 0, []
        for _ in range(rng.randint(0, 40)):
            column += rng.randint(1, 50)
            segments.append((column, rng.randint(0, 2), rng.randint(0, 300), rng.randint(0, 80),
                             *([rng.randint(0, len(NAMES) - 1)] if rng.random() < 0.3 else [])))
        lines.append(segments)
    path.write_text(json.dumps({"version": 3, "sources": ["a.ts", "b.ts", "c.ts"], "mappings": mappings(lines),
                                "names": NAMES}))
    return lines


def _expected(before: list):
    """(source, line from 1, name or None) of the last of the segments ``before`` a place, as a map says them."""
    last = before[-1] if before else None
    return (["a.ts", "b.ts", "c.ts"][last[1]], last[2] + 1, NAMES[last[4]] if len(last) > 4 else None) if last else None


@pytest.mark.parametrize("chunk", [1, 7, 64, 2**18])
def test_a_place_is_read_as_the_map_says_in_pieces_of_any_size(tmp_path, monkeypatch, chunk):
    """The mappings are read a piece at a time, each piece's segments counted: the place found is the one a
    segment-by-segment reading gives, wherever the pieces end."""
    import random
    rng = random.Random(chunk)
    lines = _random_map(rng, tmp_path / "b.js.map")
    monkeypatch.setattr(source_maps, "CHUNK", chunk)
    for line, segments in enumerate(lines):
        for column in [1, *(at + 1 + rng.randint(0, 3) for at, *_ in segments)]:
            before = [segment for segment in segments if segment[0] <= column - 1]
            at = source_maps.original([("c", str(tmp_path))], "b.js", line + 1, column)
            assert ((at.source, at.line, at.name) if at else None) == _expected(before), (line, column)


@pytest.mark.parametrize("mappings_text", ["AAAA;AA AA,AACA", "AAAA;AA\\u0041", "AAAA," + "/" * 50_000 + "A"])
def test_mappings_no_map_writes_are_said_unreadable(tmp_path, mappings_text):
    """A character no VLQ digit (a KeyError failed the whole search) or a number of a thousand digits (each
    shifted further: 10 s for 200 KB of '/') is a map not read, which the answer says."""
    (tmp_path / "bad.js.map").write_text(json.dumps({"version": 3, "sources": ["a.ts"], "names": [],
                                                     "mappings": mappings_text}))
    with pytest.raises(source_maps.Refused, match="the source map bad.js.map's mappings could not be read"):
        source_maps.original([("c", str(tmp_path))], "bad.js", 2 if ";" in mappings_text else 1, 5)
    assert source_maps._values(b"AACA") == [0, 0, 1, 0]


def test_a_librarys_bundle_is_not_read_through_its_map(engine_over):
    """A package in node_modules/ ships its bundle's map (Sift indexes neither, but they are on disk): a frame
    there was read through it into the package's own sources, a note naming them, and each such frame cost some
    150 looks at the disk. A library's frame stands for the library's own file alone."""
    files = {**TREE, "node_modules/pkg/dist/main.js.map": json.dumps(MAP)}
    answer = engine_over(files).search("TypeError: Cannot read properties of undefined (reading 'picture')\n"
                                       "    at e (/srv/app/node_modules/pkg/dist/main.js:1:48213)", mode="keyword")
    assert not any("by its source map" in said for said in answer.notes), answer.notes


def test_a_traces_frames_in_one_map_read_it_once(engine_over, monkeypatch):
    """Each minified frame read the whole map again, to its place: a trace of eight frames near the end of 15 MB
    of mappings took 14 s a search. A trace's frames in one map read it once, and are read as the same places as
    each alone."""
    opened = []
    real_open = open

    def counting(file, *args, **kwargs):
        if str(file).endswith(".map"):
            opened.append(str(file))
        return real_open(file, *args, **kwargs)

    engine = engine_over(TREE)
    places = [(8, 120), (1, 5), (3, 101), (2, 50), (7, 1), (4, 400), (6, 99), (5, 100)]
    trace = "TypeError: Cannot read properties of undefined (reading 'picture')\n" + "\n".join(
        f"    at e (https://shop.example.com/dist/app.js:{line}:{column})" for line, column in places)
    monkeypatch.setattr(source_maps, "open", counting, raising=False)
    answer = engine.search(trace, mode="keyword")
    assert opened == [str(_roots_of(engine)[0][1]) + "/dist/app.js.map"]
    monkeypatch.undo()
    said = next(said for said in answer.notes if "by its source map" in said)
    roots = _roots_of(engine)
    alone = [f"app.js:{line}:{column} is {at.source}:{at.line} by its source map dist/app.js.map"
             for line, column in places for at in [source_maps.original(roots, "dist/app.js", line, column)]]
    assert said == "the stack trace's frames " + "; ".join(alone), said


def _roots_of(engine: Engine) -> list[tuple[str, str]]:
    """The (collection, its folder) the engine's index holds."""
    import sqlite3
    from search.index import collection_reads
    with sqlite3.connect(engine.index_path) as conn:
        conn.row_factory = sqlite3.Row
        return [(row["name"], row["root"]) for row in collection_reads.collections(conn)]


@pytest.mark.parametrize("chunk, halved", [(1, 64), (7, 2), (64, 3), (2**18, 64), (2**18, 1)])
def test_frames_read_together_are_the_places_each_alone_gives(tmp_path, monkeypatch, chunk, halved):
    """source_maps.originals reads a map once for all its frames, in one pass in the order of their places: each
    frame's place is the one reading it alone gives, wherever the pieces end, on one line or many, and a map's
    refusal is each of its frames'."""
    import random
    rng = random.Random(chunk)
    lines = _random_map(rng, tmp_path / "b.js.map")
    monkeypatch.setattr(source_maps, "CHUNK", chunk)
    monkeypatch.setattr(source_maps, "HALVED", halved)
    roots = [("c", str(tmp_path))]
    frames = [("b.js", rng.randint(1, 32), rng.randint(1, 1200)) for _ in range(60)] + [("other.js", 1, 1)]
    together = source_maps.originals(roots, frames)
    assert together == {frame: source_maps.original(roots, *frame) for frame in frames}
    for (path, line, column), at in together.items():
        if path == "other.js":
            continue
        before = [segment for segment in (lines[line - 1] if line <= len(lines) else []) if segment[0] <= column - 1]
        assert ((at.source, at.line, at.name) if at else None) == _expected(before), (line, column)
    monkeypatch.setattr(source_maps, "MAX_MAP_BYTES", 16)
    refused = source_maps.originals(roots, frames)
    assert {str(refused[frame]) for frame in frames[:-1]} == {"the source map b.js.map is over 0 MB and was not read"}
    assert refused[frames[-1]] is None


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_one_line_bundles_frames_are_each_their_own_place(engine_over, mode):
    """A one-line bundle's trace is one line at several columns: the frames were kept once a line, so both were
    read at the last column the trace writes (cartTotal), and avatarUrl, where the error was, was not found. Each
    column is its own place, its own source line and function."""
    answer = engine_over(TREE).search("TypeError: Cannot read properties of undefined (reading 'picture')\n"
                                      "    at e (https://shop.example.com/dist/main.js:1:48213)\n"
                                      "    at t (https://shop.example.com/dist/main.js:1:30005)", mode=mode)
    assert [(hit.path, hit.heading_path.split(" > ")[-1]) for hit in answer.hits[:2]] == [
        ("src/users/profile.ts", "avatarUrl"), ("src/orders/cart.ts", "cartTotal")], answer.notes
    assert ("the stack trace's frames main.js:1:48213 is src/users/profile.ts:18 by its source map dist/main.js.map; "
            "main.js:1:30005 is src/orders/cart.ts:5 by its source map dist/main.js.map") in answer.notes, answer.notes
    assert source_maps.columns("at e (a.js:1:9)\nat f (a.js:1:3)\nat g (a.js:1:9)") == {("a.js", 1): [9, 3]}
    from search.query.backtrace import minified
    assert minified("at e (a.min.js:1:9)\nat f (a.min.js:1:3)\nat g (a.min.js:1:9)") == {
        "a.min.js": ["a.min.js:1:9", "a.min.js:1:3"]}  # with no map, the note names each


def test_a_map_its_bundle_names_in_another_folder_is_read(engine_over):
    """'//# sourceMappingURL=../../maps/shop.js.map' on the bundle's last line: the map is not beside the bundle,
    and the frame was said to be minified code with no map."""
    answer = engine_over(TREE).search("TypeError: Cannot read properties of undefined (reading 'picture')\n"
                                      "    at e (https://shop.example.com/dist/web/shop.js:1:48213)", mode="keyword")
    assert [(hit.path, hit.heading_path.split(" > ")[-1]) for hit in answer.hits[:1]] == [
        ("src/users/profile.ts", "avatarUrl")], answer.notes
    assert ("the stack trace's frame shop.js:1:48213 is src/users/profile.ts:18 by its source map maps/shop.js.map"
            in answer.notes), answer.notes


@pytest.mark.parametrize("named, read_as", [
    ("../maps/app.js.map", "maps/app.js.map"), ("app%20one.js.map?v=3", "dist/app one.js.map"),
    ("data:application/json;base64,eyJ2ZXJzaW9uIjozfQ==", "data:"),  # source_maps.INLINE
    ("https://cdn.example.com/app.js.map", "is on a server and was not read"),
    ("//cdn.example.com/app.js.map", "is on a server and was not read"),
    ("/static/app.js.map", "is a path on its server and was not read"),
    ("../../../etc/app.js.map", "is outside the collection and was not read"),
    ("C:/maps/app.js.map", "is outside the collection and was not read")])
def test_the_map_a_bundle_names_is_read_only_within_its_collection(tmp_path, named, read_as):
    """A map on a server, from the server's root or outside the collection is not read, and is said so: only a
    path relative to the bundle, within the collection, or a map written in the bundle (data:)."""
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "app.js").write_text("var a=1;" * 2000 + f"\n//# sourceMappingURL={named}\n")
    if read_as.endswith("was not read"):
        with pytest.raises(source_maps.Refused, match=f"the source map dist/app.js names, {named}, {read_as}"):
            source_maps.named_map(str(tmp_path), "dist/app.js")
        refused = source_maps.originals([("c", str(tmp_path))], [("dist/app.js", 1, 5)])[("dist/app.js", 1, 5)]
        assert isinstance(refused, source_maps.Refused) and read_as in str(refused)
    else:
        assert source_maps.named_map(str(tmp_path), "dist/app.js") == read_as
    (tmp_path / "dist" / "old.js").write_text("var a=1;\n//@ sourceMappingURL=old.js.map")
    assert source_maps.named_map(str(tmp_path), "dist/old.js") == "dist/old.js.map"
    assert source_maps.named_map(str(tmp_path), "dist/none.js") is None


@pytest.mark.timeout(60)
def test_a_named_pipe_of_a_bundles_name_is_not_read(tmp_path):
    """The bundle is opened for its last line: a named pipe of its name would wait for a writer, the search with it."""
    import os
    (tmp_path / "dist").mkdir()
    os.mkfifo(tmp_path / "dist" / "app.js")
    assert source_maps.named_map(str(tmp_path), "dist/app.js") is None
    assert source_maps.original([("c", str(tmp_path))], "dist/app.js", 1, 5) is None


def _index_map(*sections) -> str:
    return json.dumps({"version": 3, "sections": [{"offset": {"line": line, "column": column}, **at}
                                                  for line, column, at in sections]})


def test_an_index_maps_sections_are_read_each_from_its_offset(tmp_path):
    """An index map (``sections``: each a map and the place in the bundle it starts at) was not read. Each frame is
    read in its section, counted from the section's offset: through the map written in it, or the one its ``url``
    names (relative to the index map), or an index map in it."""
    (tmp_path / "dist").mkdir()
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / "cart.js.map").write_text(json.dumps(
        {**MAP, "sources": ["../src/orders/cart.ts", "webpack://shop/./src/orders/cart.ts"]}))
    nested = json.loads(_index_map((0, 0, {"map": MAP})))
    (tmp_path / "dist" / "main.js.map").write_text(_index_map(
        (0, 0, {"map": MAP}), (0, 60_000, {"url": "../maps/cart.js.map"}), (3, 10, {"map": nested})))
    roots = [("shop", str(tmp_path))]
    found = source_maps.originals(roots, [("dist/main.js", 1, 48213), ("dist/main.js", 1, 60_000 + 48213),
                                          ("dist/main.js", 2, 15), ("dist/main.js", 4, 10 + 48213),
                                          ("dist/main.js", 4, 5)])
    assert {frame: (at.source, at.line, at.candidates[0]) if at else None for frame, at in found.items()} == {
        ("dist/main.js", 1, 48213): ("src/users/profile.ts", 18, "shop/src/users/profile.ts"),
        ("dist/main.js", 1, 108213): ("src/orders/cart.ts", 18, "shop/src/orders/cart.ts"),
        ("dist/main.js", 2, 15): ("src/orders/cart.ts", 10, "shop/maps/src/orders/cart.ts"),  # cart.js.map's line 2
        ("dist/main.js", 4, 48223): ("src/users/profile.ts", 18, "shop/src/users/profile.ts"),
        ("dist/main.js", 4, 5): None}  # before the third section: the second's line 4, which maps nothing


@pytest.mark.timeout(60)
@pytest.mark.parametrize("written, said", [
    (_index_map((0, 0, {"url": "main.js.map"})), "holds maps over 3 deep"),
    (_index_map((0, 0, {"map": json.loads(_index_map((0, 0, {"map": json.loads(_index_map((0, 0, {"map": json.loads(
        _index_map((0, 0, {"map": MAP})))})))})))})), "holds maps over 3 deep"),
    ('{"sections": ' + "[" * 200_000 + "]" * 200_000 + "}", "could not be read"),
    (_index_map((0, 9, {"map": MAP}), (0, 1, {"map": MAP})), "sections could not be read"),
    (_index_map((0, 0, {"map": MAP}), (0, 1, {"map": MAP}), (0, 2, {"map": MAP})), "sections could not be read"),
    (_index_map((0, 0, {"url": "../../outside.js.map"})), "names no map in the collection"),
    (_index_map((0, 0, {"url": "https://cdn.example.com/a.js.map"})), "names no map in the collection"),
    (_index_map((0, 0, {"map": MAP})) + " " * 2**20, "is an index map over 1 MB")])
def test_a_hostile_index_map_is_said_unread(tmp_path, monkeypatch, written, said):
    """An index map naming itself, nested past MAX_DEPTH, nested JSON a recursion fails on, sections out of order or
    too many, a section outside the collection, or one over its cap: a clear refusal, never a hang or a crash."""
    monkeypatch.setattr(source_maps, "MAX_SECTIONS", 2)
    monkeypatch.setattr(source_maps, "MAX_INDEX_MAP_BYTES", 2**20)
    (tmp_path / "outside.js.map").write_text(json.dumps(MAP))
    (tmp_path / "shop" / "dist").mkdir(parents=True)
    (tmp_path / "shop" / "dist" / "main.js.map").write_text(written)
    with pytest.raises(source_maps.Refused, match=said):
        source_maps.original([("shop", str(tmp_path / "shop"))], "dist/main.js", 1, 5)


@pytest.mark.parametrize("mode", ["keyword"])
def test_a_minified_functions_original_name_is_the_one_its_call_names(engine_over, mode):
    """The map's ``names`` were not read: a frame's function was left out, and where its source line is now in
    another function (the code changed since the build) the trace found that one (displayName). Its original name
    is the one the map gives its call, the next frame's place (avatarUrl); the name at its own place is what it
    reads there ('picture'), not its own."""
    answer = engine_over(TREE).search("TypeError: Cannot read properties of undefined (reading 'picture')\n"
                                      "    at e (https://shop.example.com/dist/named.js:1:48213)\n"
                                      "    at t (https://shop.example.com/dist/named.js:1:30005)", mode=mode)
    assert [(hit.path, hit.heading_path.split(" > ")[-1]) for hit in answer.hits[:2]] == [
        ("src/users/profile.ts", "avatarUrl"), ("src/orders/cart.ts", "cartTotal")], answer.notes
    assert ("the stack trace's frames named.js:1:48213 is src/users/profile.ts:4 (avatarUrl) by its source map "
            "dist/named.js.map; named.js:1:30005 is src/orders/cart.ts:5 by its source map dist/named.js.map"
            in answer.notes), answer.notes
    assert source_maps.callers("at e (a.js:1:9)\n at Array.map (<anonymous>)\n at t (a.js:1:3)\nat u (b.js:2:1)") == {
        ("a.js", 1, 3): ("b.js", 2, 1)}  # a frame's caller is the frame on the next line, where it is a bundle's


def test_a_map_written_in_its_bundle_is_read(engine_over):
    """'//# sourceMappingURL=data:application/json;base64,…': the map written in the bundle's last line was not
    read, and the frame was said to be minified code with no map. A map named on a server is said not read."""
    engine = engine_over(TREE)
    answer = engine.search("TypeError: Cannot read properties of undefined (reading 'picture')\n"
                           "    at e (https://shop.example.com/dist/inline.js:1:48213)", mode="keyword")
    assert [(hit.path, hit.heading_path.split(" > ")[-1]) for hit in answer.hits[:1]] == [
        ("src/users/profile.ts", "avatarUrl")], answer.notes
    assert ("the stack trace's frame inline.js:1:48213 is src/users/profile.ts:18 by its source map inline in "
            "dist/inline.js" in answer.notes), answer.notes
    answer = engine.search("TypeError: Cannot read properties of undefined (reading 'picture')\n"
                           "    at e (https://shop.example.com/dist/served.js:1:48213)", mode="keyword")
    assert ("the source map dist/served.js names, https://cdn.example.com/served.js.map, is on a server and was not "
            "read: Sift reads maps in the collection only" in answer.notes), answer.notes


@pytest.mark.parametrize("written", [
    base64.b64encode(json.dumps({**MAP, "sourcesContent": [PROFILE * 10, CART]}).encode()).decode(),  # past URL_READ
    quote(json.dumps(MAP))])
def test_an_inline_map_is_read_long_or_percent_encoded_and_bounded(tmp_path, monkeypatch, written):
    """A map inline is the bundle's whole last line, longer than the bundle's last bytes read for a map's name; in
    base64 or percent-encoded. One over MAX_INLINE_MAP_BYTES, or that does not decode, is said not read."""
    (tmp_path / "app.js").write_text(BUNDLE + ("//# sourceMappingURL=data:application/json;base64," if "%" not in
                                               written else "//# sourceMappingURL=data:application/json,") + written)
    at = source_maps.original([("c", str(tmp_path))], "app.js", 1, 48213)
    assert (at.source, at.line, at.map_path) == ("src/users/profile.ts", 18, "inline in app.js")
    monkeypatch.setattr(source_maps, "MAX_INLINE_MAP_BYTES", 2**10)
    with pytest.raises(source_maps.Refused, match="the source map inline in app.js is over 0 MB and was not read"):
        source_maps.original([("c", str(tmp_path))], "app.js", 1, 48213)
    monkeypatch.undo()
    (tmp_path / "app.js").write_text(BUNDLE + "//# sourceMappingURL=data:application/json;base64,e!!" + "A" * 5000)
    with pytest.raises(source_maps.Refused, match="the source map inline in app.js could not be read"):
        source_maps.original([("c", str(tmp_path))], "app.js", 1, 48213)


FIREFOX = ("e@https://shop.example.com/dist/named.js:1:48213\n"
           "t@https://shop.example.com/dist/named.js:1:30005\n"
           "@https://shop.example.com/dist/named.js:1:12\n")


@pytest.mark.parametrize("trace", [FIREFOX, FIREFOX.replace("\n@", "\nglobal code@"),  # Firefox's; Safari's
                                   FIREFOX.replace("shop.example.com", "localhost:8080")])
def test_a_firefox_or_safari_frame_is_read_as_a_chrome_one(engine_over, trace):
    """Firefox and Safari write a frame's function before an '@' ('e@https://…/named.js:1:48213'): it was not read,
    so the map's original name was not looked for (a path beside a port, 'localhost:8080/…', named no place). Read
    as Chrome's 'at e (…)' is: avatarUrl, as the map names its call."""
    answer = engine_over(TREE).search(trace, mode="keyword")
    assert [(hit.path, hit.heading_path.split(" > ")[-1]) for hit in answer.hits[:2]] == [
        ("src/users/profile.ts", "avatarUrl"), ("src/orders/cart.ts", "cartTotal")], answer.notes
    assert any("named.js:1:48213 is src/users/profile.ts:4 (avatarUrl) by its source map" in said
               for said in answer.notes), answer.notes


def test_a_dev_servers_firefox_frame_finds_the_function_it_names(engine_over):
    """A frame of a file the collection holds, served unbundled ('avatarUrl@http://localhost:5173/src/users/
    profile.ts:4:3', a line now in displayName): its function is looked for, as Chrome's frame's is."""
    for trace in ("avatarUrl@http://localhost:5173/src/users/profile.ts:4:3",
                  "promise callback*avatarUrl@http://localhost:5173/src/users/profile.ts:4:3",
                  "    at avatarUrl (http://localhost:5173/src/users/profile.ts:4:3)"):
        top = engine_over(TREE).search(trace, mode="keyword").hits[0]
        assert (top.path, top.heading_path.split(" > ")[-1]) == ("src/users/profile.ts", "avatarUrl"), trace


@pytest.mark.parametrize("between, paired", [
    ("\n    at t (", True),  # one trace
    ("\nTypeError: boom\n    at t (", False),  # two pasted back to back
    ("\nCaused by: Error: boom\n    at t (", False),
    ("\n\nDuring handling of the above exception, another exception occurred:\n\n    at t (", False),
    (" Error: boom\n    at t (", False),  # another trace's header glued to the frame's line (stack + cause.stack)
    ("\nt@", False),  # a Firefox trace after a Chrome one, no line between
    ("\n    at ", True),  # an anonymous caller
])
def test_a_frames_caller_is_not_another_traces_frame(between, paired):
    """A frame's original name is the one the map gives its caller's place, the frame on the next line: a frame of
    the next trace was read as its caller where only its header stood between them on the same line, or where
    the traces are two browsers' ('at …', '…@'). It is the very next line's, of the same engine, or none."""
    trace = ("    at e (https://shop.example.com/dist/named.js:1:48213)" + between
             + "https://shop.example.com/dist/named.js:1:30005" + (")" if between.endswith("(") else ""))
    found = {callee: (path.lstrip("/"), line, column)  # an anonymous frame's URL is read from its '//'
             for callee, (path, line, column) in source_maps.callers(trace).items()}
    assert found == ({("shop.example.com/dist/named.js", 1, 48213):
                                          ("shop.example.com/dist/named.js", 1, 30005)} if paired else {})


@pytest.mark.parametrize("before, after", [
    ("}();", ""),  # a minifier's: after the code, on its last line
    ("}();\n", "\n\n"),  # a blank line after it
    ("}();\n", "\n//# debugId=85314830-023f-4cf1-a267-535f4e37bb17\n"),  # Sentry's and esbuild's line after it
    ("}();\n//# sourceMappingURL=data:application/json;base64,e30=\n", "\nvar s='//# sourceMappingURL='+u;\n")])
def test_an_inline_map_is_read_from_the_last_comment_wherever_it_is(tmp_path, before, after):
    """'//# sourceMappingURL=data:…' after code on the bundle's last line, or followed by a blank line or a
    '//# debugId=' line, was not read: no map was found, or a short one was said unreadable. The last such comment
    is read (not an earlier one, nor one in a string); one that does not decode is said not read."""
    encoded = base64.b64encode(json.dumps(MAP).encode()).decode()
    (tmp_path / "app.js").write_text("!function(e){" + "var a=1;" * 8000 + before
                                     + "//# sourceMappingURL=data:application/json;base64," + encoded + after)
    at = source_maps.original([("c", str(tmp_path))], "app.js", 1, 48213)
    assert (at.source, at.line, at.map_path) == ("src/users/profile.ts", 18, "inline in app.js")
    (tmp_path / "app.js").write_text("!function(e){" + "var a=1;" * 8000 + before
                                     + "//# sourceMappingURL=data:application/json;base64,e!!" + after)
    with pytest.raises(source_maps.Refused, match="the source map inline in app.js could not be read"):
        source_maps.original([("c", str(tmp_path))], "app.js", 1, 48213)
