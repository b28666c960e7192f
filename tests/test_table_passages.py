"""A table's rows are packed into passages under the column names, as many as the model's token limit takes, never
a row split; a plain numeric data file is one passage. A passage a row made a task table of 2,000 rows 2,000
passages to embed, short ones that outranked the page a question was about, and a file of readings thousands of
passages of numbers."""
from __future__ import annotations

from ingest.chunk import chunk_document, embedding_text
from ingest.parse import parse_file

LIMIT, OVERLAP = 256, 32
PEOPLE = ["Priya Shah", "Lin Wei", "Jonas Berg", "Mei Chen"]
ROWS = [f"Task number {i} of the billing migration,{PEOPLE[i % 4]},Not started,2026-10-{1 + i % 28:02d}"
        for i in range(40)]
LONG = "Write the runbook, " + "then check every step with the on-call engineer and " * 30 + "ship it"
# row 6 spans two lines of the file (a line break in a quoted cell); row 21 (line 24) is over the limit alone
TASKS = "\n".join(["Name,Assignee,Status,Due"] + ROWS[:5] + ['"Reconcile the ledger,\nthen report",Mei Chen,Done,'
                                                            "2026-10-02"] + ROWS[5:20] + [f'"{LONG}",Lin Wei,Done,'
                                                                                          "2026-10-03"] + ROWS[20:])


def test_rows_are_packed_under_the_column_names_whole_and_at_their_lines(embedder):
    doc = parse_file("Tasks.csv", TASKS.encode())
    chunks = chunk_document(doc, embedder.count, LIMIT, OVERLAP)
    file_lines = TASKS.split("\n")
    rows = [s.text for s in doc.sections]
    assert len(rows) == 42
    assert 42 // 8 < len(chunks) < 42 // 2  # several rows to a passage
    long = [c for c in chunks if "on-call engineer" in c.text]
    packed = [c for c in chunks if c not in long]
    assert "\n".join(c.text for c in packed).split("\n") == [r for r in rows if "on-call" not in r]  # each once
    for chunk in packed:
        assert chunk.heading_path == ["Tasks", "Name | Assignee | Status | Due"]
        assert chunk.context == "Tasks > Name | Assignee | Status | Due"  # embedded with the title and column names
        assert embedder.count(embedding_text(chunk.context, chunk.text)) <= LIMIT // 2  # a few rows: specific
        first, last = chunk.text.split("\n")[0], chunk.text.split("\n")[-1]
        assert file_lines[chunk.start_line - 1].lstrip('"').startswith(first.split(" | ")[0].split(",")[0])
        assert file_lines[chunk.end_line - 1].endswith(last.split(" | ")[-1])  # the last row's last line
    assert any(c.text.startswith("Reconcile the ledger, then report") or "\nReconcile the ledger" in c.text
               for c in packed)
    assert len(long) > 1 and all(c.start_line == c.end_line == 24 for c in long)  # the long row alone, cut
    assert not any(r in c.text for c in long for r in ROWS[19:21])


def test_a_numeric_data_file_is_one_passage_of_its_column_names_and_first_rows(embedder):
    readings = "\n".join(["timestamp,sensor,temperature,humidity"] + [
        f"2026-03-01T{i // 60 % 24:02d}:{i % 60:02d}:00,{i % 7},{(i * 7) % 35 - 5}.{i % 10},{40 + i % 50}.5"
        for i in range(5000)])
    doc = parse_file("readings.csv", readings.encode())
    [chunk] = chunk_document(doc, embedder.count, LIMIT, OVERLAP)
    assert chunk.heading_path == ["readings", "timestamp | sensor | temperature | humidity"]
    assert chunk.start_line == 2 and chunk.text.startswith("2026-03-01T00:00:00 | 0 | -5.0 | 40.5\n")
    assert chunk.end_line == 1 + chunk.text.count("\n") + 1
    # a table of the same numbers with a column of prose is notes: every row is indexed
    noted = "\n".join(["day,temperature,remark"] + [f"{i},{i % 30}.5,{'cold and windy on the ridge' if i % 9 else ''}"
                                                    for i in range(300)])
    chunks = chunk_document(parse_file("log.csv", noted.encode()), embedder.count, LIMIT, OVERLAP)
    assert chunks[-1].text.endswith("299 | 29.5 | cold and windy on the ridge")
