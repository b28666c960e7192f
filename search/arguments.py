"""The command-line parser of Sift's commands (``ingest``, ``sift-mcp``): argparse's, whose errors name the
option or command a misspelt one probably meant."""
from __future__ import annotations

import argparse
import difflib
import re


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose errors name the option or command a misspelt one probably meant."""

    def error(self, message: str):
        super().error(message + did_you_mean(self, message))


def did_you_mean(parser: argparse.ArgumentParser, message: str) -> str:
    """' (did you mean --limit?)' for 'unrecognized arguments: --limt …', ' (did you mean 'enqueue'?)' for an
    invalid choice: the nearest of the parser's own options or of the choices listed; '' when none is near. One of
    its own options, unread for coming after '--' ('ingest search -- --disable-health-check --limit 3', as a query
    that starts with a dash is written), was told '(did you mean --limit?)' for '--limit': that is said instead."""
    choice = re.search(r"invalid choice: '(.*?)' \(choose from (.*)\)$", message)
    if choice:
        near = difflib.get_close_matches(choice.group(1), re.findall(r"'([^']*)'", choice.group(2)), n=1)
        return f" (did you mean {near[0]!r}?)" if near else ""
    if not message.startswith("unrecognized arguments: "):
        return ""
    # compared without their leading dashes, which every option shares: with them '--debug' was told '--mode'
    # and sift-mcp's '--bogus' '--log-queries'
    options = {o.lstrip("-"): o for action in parser._actions for o in action.option_strings if o.startswith("--")}
    given = [word.split("=")[0] for word in message.split(": ", 1)[1].split() if word.startswith("-")]
    own = [word for word in given if word in options.values()]
    if own:  # an option of this command left unread: it came after '--' ('ingest search -- --flag --limit 3')
        return f" (options go before '--': every word after it is read as the query, so {', '.join(own)} was not)"
    said = [(word, [options[o] for o in difflib.get_close_matches(word.split("=")[0].lstrip("-"), options, n=1)])
            for word in message.split(": ", 1)[1].split() if word.startswith("-")]
    near = [f"{near[0]} for {word.split('=')[0]}" if len(said) > 1 else near[0] for word, near in said if near]
    return f" (did you mean {', '.join(near)}?)" if near else ""
