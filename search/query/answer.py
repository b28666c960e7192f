"""What a search answers: its hits (``Hit``), the answer around them (``Answer``), and the error for a request
the engine cannot answer (``SearchError``), whose message says what to change."""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field


@dataclass
class Hit:
    chunk_id: int
    collection: str
    path: str
    title: str
    kind: str
    heading_path: str
    start_line: int | None
    end_line: int | None
    page: int | None
    end_page: int | None
    snippet: str
    score: float
    keyword_rank: int | None
    semantic_rank: int | None
    generation: int
    modified: float
    page_label: str | None = None  # the number printed on the page (a PDF's page labels), where it is not `page`
    end_page_label: str | None = None
    attachments: list[str] = field(default_factory=list)  # PDFs a note cites or stands for
    cited_by: list[str] = field(default_factory=list)  # notes that cite this PDF
    attachments_total: int = 0  # how many PDFs the note cites: attachments holds the first LINKS_SHOWN
    cited_by_total: int = 0  # how many notes cite the PDF: cited_by holds the first LINKS_SHOWN
    # of the attachments shown, those the published collection does not hold: path -> why (missing, failed …)
    attachments_not_indexed: dict[str, str] = field(default_factory=dict)
    more_in_file: int = 0  # on a file's first hit: its passages that ranked among the page's, left off (PER_FILE)
    more_in_file_names: list[str] = field(default_factory=list)  # ... of code: the definitions they are, in rank order
    file_passages: int = 0  # ... and how many passages its file has in all (the MCP text points a small one to read_file)
    also_in: list[str] = field(default_factory=list)  # the same file on disk through other collections (paths)
    conflict_copies: list[str] = field(default_factory=list)  # its sync conflict copies that matched too (copies)
    conflict_copy_of: str | None = None  # of a sync conflict copy shown alone: the note it is a copy of
    conflict_original_matched: bool = False  # ... which ranks too, with passages other than this one
    author: str | None = None  # a PDF's metadata author, a note's front matter one: search finds it by it
    # of a note's passage that defines footnotes: {label: the lines that cite it} (``footnotes.cited_at``)
    footnotes_cited: dict[str, list[int]] = field(default_factory=dict)
    data_rows: str | None = None  # a data file's passage: how few of its rows search finds (listing.data_rows)
    dated: float | None = None  # the date the passage is about, where its file says one (ingest.passage_dates)
    mail_thread: list[str] = field(default_factory=list)  # a saved message's: its thread's others (mail_threads)


@dataclass
class Answer:
    query: str
    mode: str  # the mode that answered
    hits: list[Hit]
    generations: dict[str, int]
    notes: list[str] = field(default_factory=list)
    took_ms: float = 0.0
    models: list[str] = field(default_factory=list)  # the model ids that embedded the query (none: keyword)
    # the query's words no published passage holds: [{"word": as typed, "suggestion": str or None}] (spelling.Said)
    unmatched: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict:
        """The answer as plain data; ``unmatched`` only when a word is, and a hit's ``heading_path`` only when it has
        one (a passage before any heading printed ``"heading_path": ""``), as the MCP tool gives them."""
        data = asdict(self)
        if not data["unmatched"]:
            del data["unmatched"]
        for hit in data["hits"]:
            if not hit["heading_path"]:
                del hit["heading_path"]
            if hit["dated"] is None:  # a passage whose file says no date of its own (the key is new: kept out)
                del hit["dated"]
            if not hit["mail_thread"]:  # a saved message's thread (new: kept out where there is none)
                del hit["mail_thread"]
            del hit["file_passages"]  # for the MCP text's '+N more' line alone
        return data


class SearchError(ValueError):
    """A request the engine cannot answer; the message says what to change."""


def took_ms(started: float) -> float:
    """Milliseconds since ``started`` (a perf_counter), as precise as a search's time is: tenths under 10 ms,
    whole ms above (an int, which prints without '.0'). Two decimals ('1853.78 ms') were noise: the same search
    varies by more than that from one run to the next."""
    ms = (time.perf_counter() - started) * 1000
    return round(ms, 1) if round(ms, 1) < 10 else round(ms)
