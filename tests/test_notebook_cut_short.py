"""A notebook saved on one line and cut short (a sync that stopped, a disk that filled) inside an output string full
of escaped quotes (a DataFrame's HTML: '<td class=\\"x\\">'): the reader of its JSON tokens that cuts the outputs
out (ingest.notebook._outputs_cut_one_line) began a string at each escaped quote of the unclosed one and read it
again to the end, the square of its length: 40 KB took 13 s, 200 KB minutes, in the worker parsing it. Now the
unclosed string is one token: the notebook is skipped at once as JSON that does not parse."""
from __future__ import annotations

import json

import pytest

from ingest.document import Skip
from ingest.parse import parse_file


@pytest.mark.timeout(120)
def test_a_one_line_notebook_cut_inside_an_output_is_skipped_at_once():
    html = "<table>" + '<tr><td class="cell">1</td></tr>' * 20_000 + "</table>"
    notebook = {"cells": [{"cell_type": "code", "source": ["df"], "metadata": {}, "execution_count": 1,
                           "outputs": [{"output_type": "execute_result", "data": {"text/html": html}}]}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    text = json.dumps(notebook)
    assert "\n" not in text
    cut = text[:text.index("</table>") - 1000]  # inside the output's string, never closed
    with pytest.raises(Skip, match="its JSON does not parse"):
        parse_file("df.ipynb", cut.encode())
    whole = parse_file("df.ipynb", text.encode())  # the whole one reads as before: its cell, not its output
    assert [s.text for s in whole.sections] == ["df"]
