"""A JSON file that is a data set, not code or configuration: a test fixture of 3,000 invoices, a recorded API
answer, GeoJSON's features. Read by lines as code, each was a passage per few records (a Django fixture of 3,000
invoices: 1,149 passages to embed, more than the rest of its service), and each of them matched a search for the
record's field names ('due_date', 'currency') before the model and the migration that define them. Such a file is
indexed as its first lines only, as a numeric CSV table is (ingest.table): what a search finds it by is its field
names, and those are in its first records. Configuration, schemas, OpenAPI documents and translations are objects
of named parts, not arrays of records, and stay read whole.

YAML the same (.yaml, .yml): a fixture of records (a list of mappings, or Rails' fixtures, a mapping of 100 named
records or more) and a recorded HTTP cassette (VCR's interactions: or http_interactions:, of any number: a cassette
of 64 KB is recorded answers' bodies) are data sets; a Kubernetes manifest, an OpenAPI document, a CI workflow or
Helm values are objects of named parts (or several documents) and stay read whole. A data set's records and those
its first lines hold are its meta's rows and rows_indexed, as a data file's rows are (ingest.table), for list_files
and a search hit to say how few of them search finds (search.query.listing.data_rows)."""
from __future__ import annotations

import json
import re
from collections import Counter

import yaml

from .table import PROSE_WORDS

DATA_SET_BYTES = 64 * 1024  # a smaller file costs a few passages at most: read whole, not parsed to tell
DATA_SET_RECORDS = 100  # an array of this many objects or more is a table of records
DATA_SET_LINES = 30  # of a data set's first lines indexed: its first records, their field names
# records of which this share or more say something in words (a value of PROSE_WORDS words or more, as a table's
# prose cell: ingest.table) are messages, not data: Telegram's and DiscordChatExporter's chat exports, a FAQ, a
# Slack channel's day are read whole (as their first 30 lines, a search found no later message)
PROSE_SHARE = 0.25
PROSE_SAMPLE = 1000  # of an array's first records looked at for prose
ROW_SHARE = 0.8  # of named YAML records like a table's rows (ingest.data_sets._rows) that make them a data set


def _prose(records: list) -> bool:
    """Whether a share of ``records`` (the first PROSE_SAMPLE) hold a value of words, at any depth."""
    sample = records[:PROSE_SAMPLE]
    return sum(_says(record, 0) for record in sample) >= PROSE_SHARE * len(sample)


def _says(value, depth: int) -> bool:
    if isinstance(value, dict) and _PROSE in value:  # a YAML record's outline holding a value of words
        return True
    if isinstance(value, str):
        return len(value.split()) >= PROSE_WORDS
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return depth < 8 and any(_says(item, depth + 1) for item in items)


def _rows(records: list[dict]) -> bool:
    """Whether named records are a table's rows, as Rails' fixtures are: most of them (ROW_SHARE) of the usual keys
    (those of half the records or more) and of values, not lists and mappings. A CI file's 120 jobs, a service's
    settings (each its own keys, scripts and rules) were a data set, its first 30 lines all a search found."""
    sample = records[:PROSE_SAMPLE]
    keys = [[key for key in record if isinstance(key, str)] for record in sample]
    counts = Counter(key for own in keys for key in own)
    usual = {key for key, count in counts.items() if 2 * count >= len(sample)}
    rows = sum(bool(own) and 2 * sum(key in usual for key in own) >= len(own)
               and 3 * sum(isinstance(record[key], (dict, list)) for key in own) <= len(own)
               for record, own in zip(sample, keys))
    return rows >= ROW_SHARE * len(sample)


def data_set_records(suffix: str, text: str) -> int:
    """The number of records of a JSON or YAML data set (an array of DATA_SET_RECORDS objects or more, the whole
    document or a value of its top object; in YAML also a mapping of that many named records, or a cassette's
    interactions), or 0 for any other text, a file under DATA_SET_BYTES or one that does not parse (read by lines,
    as before)."""
    if suffix not in (".json", ".yaml", ".yml") or len(text) < DATA_SET_BYTES:
        return 0
    try:
        value = json.loads(text) if suffix == ".json" else _yaml_outline(text)
    except (ValueError, TypeError, RecursionError, yaml.YAMLError):  # several documents (Kubernetes'): not one set
        return 0
    if suffix != ".json" and isinstance(value, dict):
        cassette = next((value[key] for key in CASSETTE_KEYS if isinstance(value.get(key), list)), None)
        if cassette is not None and all(isinstance(item, dict) for item in cassette):
            return len(cassette)
        if len(value) >= DATA_SET_RECORDS and all(isinstance(item, dict) for item in value.values()) \
                and not _prose(list(value.values())) and _rows(list(value.values())):  # _data/authors.yml of bios
            return len(value)  # Rails' fixtures: a record under each name
    arrays = [value] if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else []
    return max((len(array) for array in arrays if isinstance(array, list) and len(array) >= DATA_SET_RECORDS
                and all(isinstance(item, dict) for item in array) and not _prose(array)), default=0)


CASSETTE_KEYS = ("interactions", "http_interactions")  # VCR.py's and Ruby VCR's recorded requests and answers
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's: a 1 MB fixture in a fraction of a second
_YAML_KINDS = {yaml.MappingStartEvent: dict, yaml.SequenceStartEvent: list}


def _yaml_outline(text: str):
    """A YAML document's top two levels as yaml.load gives them, each value below them an empty dict or list or None
    (a scalar): all data_set_records looks at. Walked from libyaml's parse events, nothing below built: loaded whole,
    a fixture of 5 MB took 6.9 s and 280 MB (a 50 MB one over a minute and gigabytes, to count its records), and a
    tag the safe loader does not know (Ruby VCR's '!binary' body) made a cassette no data set. Raises
    yaml.YAMLError for several documents, as yaml.load does."""
    stack: list = []  # the open collections: [the value (None below the top two levels), the key awaited, what
    # stands for it in its parent's outline (marked _PROSE when a value of words is inside it)]
    anchors: dict = {}
    top = None
    documents = 0
    for event in yaml.parse(text, Loader=_YAML_LOADER):
        kind = _YAML_KINDS.get(type(event))
        if isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise yaml.YAMLError("several documents")
            continue
        if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            stack.pop()
            continue
        if kind is not None:
            value = kind() if len(stack) <= 2 else None
        elif isinstance(event, yaml.ScalarEvent):
            key = bool(stack) and isinstance(stack[-1][0], dict) and stack[-1][1] is _KEY
            value = event.value if key else None
            if not key and " " in event.value and len(event.value.split(None, PROSE_WORDS)) >= PROSE_WORDS:
                for frame in stack[1:3]:  # words: the records they are in say something
                    if isinstance(frame[2], dict):
                        frame[2][_PROSE] = True
        elif isinstance(event, yaml.AliasEvent):
            value = anchors.get(event.anchor)
            value = type(value)() if isinstance(value, (dict, list)) else value
        else:
            continue
        if getattr(event, "anchor", None) and not isinstance(event, yaml.AliasEvent):
            anchors[event.anchor] = value
        stored = None  # what the value is in its parent's outline
        if not stack:
            top = stored = value
        elif isinstance(stack[-1][0], list):
            stored = value if len(stack) == 1 else None if value is None else type(value)()
            stack[-1][0].append(stored)
        elif isinstance(stack[-1][0], dict):
            if stack[-1][1] is _KEY:  # a key: a collection as key is a key of its own
                stack[-1][1] = value if isinstance(value, str) else object()
            else:
                stored = value if len(stack) == 1 else None if value is None else type(value)()
                stack[-1][0][stack[-1][1]] = stored
                stack[-1][1] = _KEY
        if kind is not None:
            stack.append([value if len(stack) < 2 else None, _KEY, stored])
    return top


_KEY = object()  # a mapping waits for a key
# in a YAML record's outline (its values dropped): a value of words stands below it. Without it no YAML record said
# anything: a list of questions and answers, or messages, was a data set, its first 30 lines all search found
_PROSE = object()
_JSON_CLOSE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_YAML_ITEM = re.compile(r"(\s*)- ")
_YAML_NAMED = re.compile(r"[^\s#-][^:]*:\s*$")  # a named record of Rails' fixtures: 'david:' at the line's start


def records_within(suffix: str, head: str, whole: bool) -> int:
    """How many records of a data set its first lines ``head`` hold whole (``whole``: they are all of it): in JSON
    the objects closed right inside an array at depth one or two (the document's, or its top object's value), in
    YAML the records begun in it but the last (cut off, unless ``whole``)."""
    if suffix == ".json":
        depth, count = [], 0
        for token in _JSON_CLOSE.findall(head):
            if token in "[{":
                depth.append(token)
            elif token in "]}" and depth:
                depth.pop()
                count += token == "}" and len(depth) in (1, 2) and depth[-1] == "["
        return count
    lines = head.split("\n")
    dashes = [m.group(1) for m in map(_YAML_ITEM.match, lines) if m]  # a list's records: at its least indent
    named = [line for line in lines if _YAML_NAMED.match(line)]  # Rails' records, or the key a list stands under
    indent = min(dashes, key=len, default=None)
    items = [d for d in dashes if d == indent] if dashes and (indent == "" or len(named) <= 1) else named
    return len(items) if whole else max(len(items) - 1, 0)
