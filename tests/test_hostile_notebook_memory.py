"""A notebook's outputs are let go as they are read, and its lines are found without a list of them.

A 62 MB notebook whose one cell printed a 40 MB training log took 420 MB to read two cells: json.loads held every
output, and the file's 1.1 million lines were split into a list to place each cell on them. Now an output is cut out
of the text before it is parsed where Jupyter wrote it on lines of its own (ingest.notebook._outputs_cut), else
kept as its type alone once read (_without_output), and lines are found by their offsets (_Lines): a 6 MB
notebook's own peak fell from 3.9 times its text to almost nothing (0.003)."""
from __future__ import annotations

import json
import tracemalloc

from ingest.notebook import parse_notebook


def _notebook(log_lines: int) -> str:
    log = [f"epoch {i}: loss {1 / (i + 1):.6f} the tapir learns\n" for i in range(log_lines)]
    cells = [{"cell_type": "markdown", "source": ["# Training\n"], "metadata": {}},
             {"cell_type": "code", "source": ["import tapir\n"], "metadata": {}, "execution_count": 1, "outputs": []},
             {"cell_type": "code", "source": ["train(model)\n"], "metadata": {}, "execution_count": 1,
              "outputs": [{"output_type": "stream", "name": "stdout", "text": log},
                          {"output_type": "display_data", "data": {"text/plain": ["done"]}, "metadata": {}}]},
             {"cell_type": "markdown", "source": ["## After the log\n", "\n", "the okapi was evaluated\n"],
              "metadata": {}}]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


# the last of the 30,000 lines of the log, from a line's start (ingest.notebook._stream_tail), and the output after it
LOGGED = "train(model)\nOut: … " + "".join(f"epoch {i}: loss {1 / (i + 1):.6f} the tapir learns\n"
                                           for i in range(29_955, 30_000)) + "Out: done"


def test_a_notebook_with_a_long_output_is_read_in_less_than_twice_its_size():
    text = _notebook(30_000)  # 1.3 MB
    tracemalloc.start()
    try:
        doc = parse_notebook("train.ipynb", text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.5 * len(text)  # 3.9 times when every output and a list of the lines were held
    lines = text.split("\n")
    # the log's output, over OUTPUT_LIMIT, is read for its last lines alone, unparsed; the small one after it is read
    assert [section.text for section in doc.sections] == ["# Training\nimport tapir", LOGGED,
                                                          "## After the log\n\nthe okapi was evaluated"]
    last = doc.sections[-1]  # placed on the file's own lines, past the 30,000 of the log
    assert lines[last.start_line - 1].strip() == '"## After the log\\n",'
    assert lines[last.end_line - 1].strip() == '"the okapi was evaluated\\n"'
    assert doc.sections[-1].heading_path == ["Training", "After the log"]


def test_a_notebook_on_one_line_has_its_outputs_cut_out_before_it_is_parsed():
    """Written without line breaks, the outputs are found by the JSON's tokens (ingest.notebook
    ._outputs_cut_one_line): one output was parsed whole before it was let go, 1.8 times the text."""
    text = json.dumps(json.loads(_notebook(30_000)))
    tracemalloc.start()
    try:
        doc = parse_notebook("train.ipynb", text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.5 * len(text)  # 0.012 times; 1.8 when one output was parsed whole before it was let go
    assert [section.text for section in doc.sections] == ["# Training\nimport tapir", LOGGED,
                                                          "## After the log the okapi was evaluated"]


def test_a_one_line_notebook_whose_strings_hold_outputs_keys_and_brackets_keeps_its_cells():
    """Only a cell's own "outputs" list is cut: the word in a source, in an output's text, escaped quotes and
    brackets inside strings do not move the cut."""
    log = ['{"outputs": [', '] "x\\', "\"]}", "the log " * 200_000]
    cells = [{"cell_type": "markdown", "source": ['"outputs": [ the heron ]'], "metadata": {"outputs": [1]}},
             {"cell_type": "code", "source": ["print(']')"], "execution_count": 1, "metadata": {},
              "outputs": [{"output_type": "stream", "name": "stdout", "text": log}]},
             {"cell_type": "markdown", "source": ["# The okapi \\\"]"], "metadata": {}}]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    doc = parse_notebook("t.ipynb", text)
    assert [section.text for section in doc.sections] == ['"outputs": [ the heron ]', "print(']')",
                                                          '# The okapi \\\"]']
