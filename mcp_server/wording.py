"""The messages the server shares with the `ingest` commands, in the tools' words.

The index, the model and the engine say what to do as a terminal user does it (`ingest enqueue` re-embeds, `run
`ingest enqueue PATH` first`): an assistant has the refresh tool for the one, and the server's own NO_INDEX says
the other, with the command already (ingest/cli.py words the tools' messages for the terminal likewise).
"""
from __future__ import annotations

TOOL_WORDS = (("a build with the configured model published (`ingest enqueue` re-embeds with ",
               "a build with the configured model published (the refresh tool, or `ingest enqueue` in a terminal, "
               "queues the scan that re-embeds with "),
              (": run `ingest enqueue PATH` first", ""))  # db.NoIndex, said inside NO_INDEX, which names it


def in_tool_words(message: str) -> str:
    for command, tool in TOOL_WORDS:
        message = message.replace(command, tool)
    return message
