"""Tags in similar and in a '#tag' query, over one small vault with embeddings (MiniLM), built once for the module.

similar's ``tags`` (and `ingest similar --tag`) keep only the passages carrying every tag given, as search's do (the
catalog's mask over the stored vectors); a '#tag' query puts the passages of the notes tagged so first, read from the
same index of tags as the filter (schema V22's table tags), and from the JSON columns of an index before it."""
from __future__ import annotations

import json
import shutil

import pytest

from search.query.engine import Engine
from search.query.filters import Filters
from tests.conftest import as_older_index, engine_in, in_home, tree_built_once
from tests.test_passage_tags import EXPORT

NOTES = {
    "soup.md": "---\ntags: [Recipe, project/sift]\n---\n# Soup\n\nLentil soup with carrots and cumin, simmered.\n",
    "stew.md": "---\ntags: [recipe]\n---\n# Stew\n\nBean stew with tomatoes and onions, cooked slowly.\n",
    "broth.md": "# Broth\n\nChicken broth with carrots and celery, simmered for hours.\n",
    "bread.md": "# Bread\n\nBaking bread with flour and yeast. #project\n",
    "Cooking.enex": EXPORT,  # one note of three tagged recipe (its passages' own tags)
    "pages/garden.md": "- Tomatoes need sun.\n- Plan the shed\n  tags:: project/shed\n  - soup for the builders\n",
}


@pytest.fixture(scope="module")
def vault(tmp_path_factory, model_path):
    return tree_built_once(tmp_path_factory, model_path, NOTES, "notes")


@pytest.fixture
def engine(vault, model_path, embedder, monkeypatch):
    return engine_in(vault, model_path, embedder, monkeypatch)


def _like(engine: Engine, *tags: str) -> list[tuple[str, str]]:
    answer = engine.similar(path=("notes", "soup.md"), limit=20, filters=Filters(tags=tags))
    return sorted((h.path, h.heading_path) for h in answer.hits)


def test_similar_keeps_only_the_passages_carrying_every_tag(engine):
    assert ("broth.md", "Broth") in _like(engine)  # nearest in meaning, and not tagged
    # a file's tag (front matter), a passage's own (the export's one note tagged recipe); not the file itself
    assert _like(engine, "recipe") == [("Cooking.enex", "Lentil soup"), ("stew.md", "Stew")]
    assert _like(engine, "#RECIPE") == _like(engine, "recipe")
    # the parent holds the nested: inline #project, a Logseq block's project/shed (its passage only)
    assert _like(engine, "project") == [("bread.md", "Bread"), ("pages/garden.md", "")]
    assert _like(engine, "recipe", "dinner") == [("Cooking.enex", "Lentil soup")]  # every one of them
    meant = engine.search("soup", mode="semantic", limit=20, filters=Filters(tags=("recipe",)))  # the same mask
    assert {(h.path, h.heading_path) for h in meant.hits} == {("Cooking.enex", "Lentil soup"), ("stew.md", "Stew"),
                                                              ("soup.md", "Soup")}, meant.hits
    by_passage = engine.similar(chunk_id=engine.search("bean stew", mode="keyword").hits[0].chunk_id, limit=20,
                                filters=Filters(tags=("recipe",)))
    assert sorted(h.path for h in by_passage.hits) == ["Cooking.enex", "soup.md"], by_passage.hits


def test_similar_with_a_tag_no_file_holds_answers_nothing_and_names_the_nearest(engine):
    answer = engine.similar(path=("notes", "soup.md"), filters=Filters(tags=("recipy",)))
    assert answer.hits == []
    assert any("tagged #recipy" in note and "#recipe" in note for note in answer.notes), answer.notes


def test_ingest_similar_takes_tag(vault, model_path, monkeypatch, capsys):
    from ingest.cli import main
    in_home(vault, model_path, monkeypatch)
    assert main(["similar", "notes/soup.md", "--tag", "recipe", "--tag", "#dinner", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert [(r["path"], r["heading_path"]) for r in found["hits"]] == [("Cooking.enex", "Lentil soup")], found
    assert main(["similar", "notes/soup.md", "--tag", "recipy"]) == 0
    said = capsys.readouterr().out
    assert "no other passages found" in said and "#recipe" in said, said


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_tag_query_puts_the_tagged_passages_first(engine, mode):
    """A file's tag, a passage's own and a nested tag alike, from the index of tags the filter reads."""
    answer = engine.search("#recipe", mode=mode, limit=20)
    paths = [(h.path, h.heading_path) for h in answer.hits]
    assert set(paths[:3]) == {("soup.md", "Soup"), ("stew.md", "Stew"), ("Cooking.enex", "Lentil soup")}, paths
    assert any("tagged #recipe" in note for note in answer.notes), answer.notes
    shed = engine.search("#project soup", mode=mode, limit=20)
    assert set((h.path, h.heading_path) for h in shed.hits[:2]) == {("soup.md", "Soup"), ("pages/garden.md", "")}, \
        shed.hits
    assert engine.search("#recipy", mode=mode).notes == engine.search("recipy", mode=mode).notes  # none holds it


def test_a_tag_query_on_an_index_before_v22_reads_the_json(vault, tmp_path, model_path, embedder, monkeypatch):
    """A reader does not migrate: an index an older Sift left has no table tags, and its '#tag' queries read the
    tags from files.meta and chunks.tags, as the filter does."""
    home = tmp_path / "home"
    shutil.copytree(vault, home)
    as_older_index({"SIFT_HOME": str(home)}, "DROP TABLE tags;", 21)
    engine = engine_in(home, model_path, embedder, monkeypatch)
    answer = engine.search("#recipe", mode="keyword", limit=20)
    paths = [(h.path, h.heading_path) for h in answer.hits]
    assert set(paths[:3]) == {("soup.md", "Soup"), ("stew.md", "Stew"), ("Cooking.enex", "Lentil soup")}, paths
    assert _like(engine, "recipe") == [("Cooking.enex", "Lentil soup"), ("stew.md", "Stew")]


def test_the_catalog_reads_the_tags_only_for_a_search_using_them(vault, model_path, embedder, monkeypatch):
    """Each catalog load read every row of the table tags (400,000 rows: ~100 ms of 0.8 s), used or not."""
    engine = Engine(in_home(vault, model_path, monkeypatch), lambda: embedder)
    statements: list[str] = []
    engine._connection().set_trace_callback(statements.append)
    try:
        engine.warm()
        engine.search("soup", mode="hybrid")
        engine.similar(path=("notes", "soup.md"))
        assert not any("FROM tags" in sql for sql in statements), [s for s in statements if "tags" in s]
        assert [h.path for h in engine.search("#recipe", mode="keyword").hits][:1] != []
        assert sum("group_concat(chunk) FROM tags" in sql for sql in statements) == 1
        engine.search("stew", mode="hybrid", filters=Filters(tags=("recipe",)))  # read once per catalog
        assert sum("group_concat(chunk) FROM tags" in sql for sql in statements) == 1
    finally:
        engine._connection().set_trace_callback(None)
