"""The command-line parser of Sift's commands (``ingest``, ``sift-mcp``): argparse's, whose errors name the
option or command a misspelt one probably meant."""
from __future__ import annotations

import argparse
import difflib
import re
import sys


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose errors name the option or command a misspelt one probably meant."""

    given: list[str] = []  # the words this parser was given (a command's parser: those after its name)

    def parse_known_args(self, args=None, namespace=None):
        self.given = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str):
        super().error(message + did_you_mean(self, message) + dashed_positional(self, message))


def dashed_positional(parser: "Parser", message: str) -> str:
    """' (a query that starts with '-' goes after '--': ingest search -- -koala)' when a required argument is
    missing and a word given starts with '-' but is none of the parser's options: argparse read '-koala' as an
    option and said only 'the following arguments are required: query'."""
    missing = re.match(r"the following arguments are required: (\S+?)(?:,|$)", message)
    if not missing:
        return ""
    options = {o for action in parser._actions for o in action.option_strings}
    dashed = [word for word in getattr(parser, "given", []) if word.startswith("-") and word != "--"
              and word.split("=")[0] not in options and not any(o.startswith(word.split("=")[0]) for o in options)]
    if not dashed:
        return ""
    name = missing.group(1)
    return f" (a {name} that starts with '-' goes after '--': {parser.prog} -- {dashed[0]})"


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
