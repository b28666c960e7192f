"""An assistant's tool calls, replayed: what 25 user requests cost in calls and characters over the real MCP client.

Sift's real user is an AI assistant calling its tools over MCP. Each request below is what a user asks of the
assistant (a question of fact, "summarise what I wrote about X", "find the note where I…", "what did that PDF
say on page N", a follow-up), with the calls an assistant made for it over a real `sift-mcp` on the stdio client,
reading the tool list and each answer as given. This replays those calls and prints, per request, how many calls
it took and how many characters their text answers and structured data held (the text is what a model reads:
its token cost), then the totals. Run it in two checkouts over one home to compare answer layouts.

    SIFT_MODEL=minilm .venv/bin/python bench/assistant_calls.py --home DIR [--show N]

--home: a home whose index holds collections `notes-en` (../shared/data/notes-en) and `pdf` (../shared/data/pdf);
one that holds neither is built first (both folders indexed in huey's immediate mode: an hour or more on 2 cores
for notes-en with MiniLM). The figures of docs/benchmarks.md came from the first parts of notes-en's first build
(its first 100 notes: ack … devops) and the PDFs. --show N prints request N's answers.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from common import REPO, shared_data

# (request, [(tool, arguments), …]): the calls, in order, that answered it
REQUESTS = [
    ("How do I stop the AWS CLI from opening a pager?",
     [("search", {"query": "turn off the aws cli output pager"})]),
    ("Find the note where I ssh'd into an ECS container: what was the command?",
     [("search", {"query": "ssh into an ECS container"}),
      ("read_file", {"path": "notes-en/aws/ssh-into-an-ecs-container.md"})]),
    ("Summarise what I wrote about Clojure.",
     [("list_files", {"path_prefix": "notes-en/clojure", "sort": "path"}),
      ("search", {"query": "clojure", "path_prefix": "notes-en/clojure", "limit": 20})]),
    ("What did the Vicksburg diary say about Johnston coming with fifty thousand men?",
     [("search", {"query": "Johnston coming with fifty thousand men to raise the siege", "kind": "pdf", "limit": 5}),
      ("read_file", {"path": "pdf/en/Seige_of_Vicksburg_Sample_OCR.pdf", "page": 1})]),
    ("What's on page 3 of the GeoBase data model PDF?",
     [("read_file", {"path": "GeoBase_NHNC1_Data_Model_UML_EN.pdf", "page": 3})]),
    ("And what does it say about hydro network waterbodies?  (a follow-up)",
     [("search", {"query": "hydro network waterbody", "kind": "pdf", "limit": 5})]),
    ("How do I apply several box shadows to one element?",
     [("search", {"query": "multiple box shadows on one element", "limit": 5}),
      ("read_file", {"path": "notes-en/css/apply-multiple-box-shadows-to-single-element.md"})]),
    ("How did I resume a specific Claude Code session?",
     [("search", {"query": "resume a specific claude code session", "limit": 5}),
      ("read_file", {"path": "notes-en/claude-code/resume-specific-session.md"})]),
    ("Which brew environment file do I use?",
     [("search", {"query": "brew environment variables file", "limit": 5}),
      ("read_file", {"path": "notes-en/brew/configure-brew-environment-variables.md"})]),
    ("How did I export everything installed by brew?",
     [("search", {"query": "export list of everything installed by brew", "limit": 5})]),
    ("What were my notes on Chrome DevTools?",
     [("search", {"query": "chrome devtools", "path_prefix": "notes-en/chrome", "limit": 10})]),
    ("How do I simulate a slow connection in Chrome?",
     [("search", {"query": "simulate slow network connection speeds chrome", "limit": 5})]),
    ("What's the ack flag for a case-insensitive search?",
     [("search", {"query": "ack case insensitive search", "limit": 3})]),
    ("Have I written anything about the UFW firewall and HTTPS?",
     [("search", {"query": "ufw firewall https", "limit": 5}),
      ("read_file", {"path": "notes-en/devops/allow-https-through-your-ufw-firewall.md"})]),
    ("How do I use a specific AWS profile per project?",
     [("search", {"query": "use a specific aws profile for a project directory", "limit": 5})]),
    ("What is the Zen of Python text in that Google Docs PDF?",
     [("search", {"query": "Beautiful is better than ugly", "kind": "pdf", "limit": 3}),
      ("read_file", {"path": "pdf/en/google-doc-document.pdf", "page": 1})]),
    ("Which countries does the table in the two-column PDF list?",
     [("search", {"query": "table of countries population capital language", "kind": "pdf", "limit": 5})]),
    ("Which PDFs could not be indexed, and why?",
     [("list_files", {"collection": "pdf"})]),
    ("How do I focus the address bar with a key?",
     [("search", {"query": "keybinding to focus the address bar", "limit": 3})]),
    ("How did I get the type of anything in Clojure?",
     [("search", {"query": "type of anything clojure", "limit": 3}),
      ("read_file", {"path": "notes-en/clojure/type-of-anything.md"})]),
    ("Find my note on CSS :root versus html specificity.",
     [("search", {"query": ":root html specificity", "limit": 3})]),
    ("What notes are related to the one on lightening and darkening with SCSS?",
     [("similar", {"path": "notes-en/css/lighten-and-darken-with-scss.md", "limit": 5})]),
    ("How do I loop over a list of dictionaries in Ansible?",
     [("search", {"query": "ansible loop over a list of dictionaries", "limit": 5}),
      ("read_file", {"path": "notes-en/ansible/loop-over-a-list-of-dictionaries.md"})]),
    ("How fresh is my index?",
     [("stats", {})]),
    ("Read me the note on aggregating with merge-with.",
     [("read_file", {"path": "aggregation-using-merge-with.md"})]),
]


def sizes(result) -> tuple[int, int]:
    """(characters of the text answer, characters of its structured content as JSON)."""
    text = "\n".join(block.text for block in result.content)
    data = result.structured_content
    return len(text), len(json.dumps(data, ensure_ascii=False)) if data else 0


async def replay(home: Path, show: int | None) -> list[tuple[int, int, int]]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    env = dict(os.environ, SIFT_HOME=str(home), PYTHONPATH=str(REPO))
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcp_server", "--no-worker"], env=env,
                                   cwd=str(REPO))
    rows = []
    with open(home / "assistant-calls-server.log", "a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                tools = sum(len(json.dumps(t.model_dump(by_alias=True, exclude_none=True))) for t in listed.tools)
                # what a client hands the model of each tool: its name, description and inputSchema (the
                # outputSchema is the client's, to check structuredContent against)
                told = sum(len(json.dumps(t.model_dump(by_alias=True, exclude_none=True,
                                                       include={"name", "description", "input_schema"})))
                           for t in listed.tools)
                print(f"tools/list: {len(listed.tools)} tools, {tools:,} characters ({told:,} without the "
                      "outputSchemas)")
                for n, (request, calls) in enumerate(REQUESTS, start=1):
                    text = data = 0
                    for name, arguments in calls:
                        result = await session.call_tool(name, arguments)
                        t, d = sizes(result)
                        text, data = text + t, data + d
                        if show == n:
                            print(f"--- {name} {json.dumps(arguments, ensure_ascii=False)}\n"
                                  + "\n".join(b.text for b in result.content))
                    rows.append((len(calls), text, data))
                    print(f"{n:2}. {len(calls)} call{'s' if len(calls) > 1 else ' '}  text {text:6,}  data {data:6,}  "
                          f"{request}")
    return rows


def ensure_index(home: Path) -> None:
    """Index notes-en and the PDFs into ``home`` unless it holds them (huey's immediate mode, as quality.py)."""
    os.environ["SIFT_HOME"] = str(home)
    index = home / "index.db"
    if index.exists():
        import sqlite3
        names = {row[0] for row in sqlite3.connect(index).execute("SELECT name FROM collections")}
        if {"notes-en", "pdf"} <= names:
            return
    from quality import build_index
    for name in ("notes-en", "pdf"):
        build_index(shared_data(name), home, name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="the Sift home to read (built when it is not)")
    parser.add_argument("--show", type=int, help="print the answers of this request (1-based)")
    args = parser.parse_args()
    ensure_index(args.home)
    import anyio
    rows = anyio.run(replay, args.home, args.show)
    calls, text, data = (sum(column) for column in zip(*rows))
    print(f"total: {len(rows)} requests, {calls} calls, text {text:,} characters ({text / len(rows):,.0f} a "
          f"request), data {data:,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
