"""The tools' structuredContent through the real stdio client: what it carries per hit, and (once declared) that
every shape of answer a tool gives fits its outputSchema."""
from __future__ import annotations

import shutil

from tests.conftest import ingest, need_data, write_tree
from tests.test_mcp_server import call, run, text

NOTES = {
    "tech/cooking.md": "# Cooking pasta\n\nBoil water, add salt, cook the spaghetti for nine minutes.\n",
    "tech/sauce.md": "# Tomato sauce\n\n## Garlic\n\nSimmer tomatoes with garlic and olive oil, then toss with the "
                     "cooked pasta.\n",
    "code/boil.py": "def boil_pasta(minutes: int) -> str:\n    \"\"\"Cook the spaghetti in salted water.\"\"\"\n"
                    "    return f'pasta cooked for {minutes} minutes'\n",
    "empty.md": "",
}


def corpus(root, sift_env) -> dict:
    """NOTES, a code file and a PDF indexed (immediate mode) as collection 'notes'."""
    write_tree(root, NOTES)
    shutil.copy(need_data("pdf/en/google-doc-document.pdf"), root / "paper.pdf")
    report = ingest(root, "notes")
    return {"env": {**sift_env, "SIFT_QUEUE_IMMEDIATE": "0"}, "generation": report["published"]["id"]}


def test_hits_leave_out_what_their_path_and_the_answers_generations_say(immediate, tmp_path, sift_env, servers):
    """A hit's data repeated its collection and relative path (both in ``path``), the generation (the answer's
    ``generations`` says it once) and a heading path equal to its title: a search's data was about twice its
    text. They are left out; a heading path that says more than the title stays."""
    made = corpus(tmp_path / "notes", sift_env)

    async def scenario():
        async with servers.session(made["env"], "--no-worker") as s:
            return (await call(s, "search", query="pasta tomatoes spaghetti", limit=10),
                    await call(s, "similar", path="notes/tech/cooking.md"))
    found, like = run(scenario)
    assert not found.is_error and not like.is_error, (text(found), text(like))
    for answer in (found.structured_content, like.structured_content):
        assert answer["generations"] == {"notes": made["generation"]}
        assert answer["results"], answer
        for hit in answer["results"]:
            assert not {"collection", "relative_path", "generation"} & set(hit), hit
            assert hit["path"].startswith("notes/") and "chunk_id" in hit and "score" in hit
            assert hit.get("heading_path") != hit["title"], hit
    sauce = next(h for h in found.structured_content["results"] if h["path"] == "notes/tech/sauce.md")
    assert sauce["heading_path"] == "Tomato sauce > Garlic", sauce
