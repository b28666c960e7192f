"""The index schema and its migrations.

The schema version lives in ``PRAGMA user_version``. Each migration moves the
database up one version inside one transaction; an index is never deleted and
rebuilt to change its shape.
"""
from __future__ import annotations

import sqlite3

# FTS5's tokenizer for chunks_fts (V1); readers tokenize queries and new rows with the same one.
TOKENIZER = "porter unicode61 remove_diacritics 2"

# Visibility of a file version (and so of its chunks): generations
# gen_from <= g < gen_to of its collection. gen_to NULL means "still current".
V1 = """
CREATE TABLE collections (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    root TEXT NOT NULL,
    published INTEGER,            -- id of the generation readers see
    created REAL NOT NULL
);
CREATE TABLE generations (
    id INTEGER PRIMARY KEY,
    collection INTEGER NOT NULL REFERENCES collections(id),
    state TEXT NOT NULL,          -- building | published | superseded
    model TEXT,                   -- model id the vectors were made with, NULL: keyword only
    started REAL NOT NULL,
    discovered REAL,              -- when discover had queued every changed file
    finished REAL,
    seen INTEGER NOT NULL DEFAULT 0,
    unchanged INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX generations_collection ON generations(collection, state);
CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    collection INTEGER NOT NULL REFERENCES collections(id),
    path TEXT NOT NULL,           -- relative to the collection root, '/' separated
    kind TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime REAL NOT NULL,
    sha256 TEXT NOT NULL,
    title TEXT,
    meta TEXT,                    -- JSON from the parser
    gen_from INTEGER NOT NULL,
    gen_to INTEGER
);
CREATE INDEX files_current ON files(collection, path) WHERE gen_to IS NULL;
CREATE INDEX files_sha ON files(sha256);
CREATE INDEX files_gen_to ON files(gen_to) WHERE gen_to IS NOT NULL;
CREATE TABLE chunks (
    id INTEGER PRIMARY KEY,
    file INTEGER NOT NULL REFERENCES files(id),
    ordinal INTEGER NOT NULL,
    heading_path TEXT NOT NULL,   -- ' > ' joined
    start_line INTEGER,
    end_line INTEGER,
    page INTEGER,
    end_page INTEGER,
    text TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    text_hash TEXT NOT NULL
);
CREATE INDEX chunks_file ON chunks(file);
CREATE INDEX chunks_hash ON chunks(text_hash);
-- rowid = chunks.id; columns hold the normalised, CJK-expanded form of the text.
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    title, headings, body, tokenize = 'porter unicode61 remove_diacritics 2'
);
-- The embedding cache: one vector per (model, chunk text), shared by every
-- chunk with that text, across edits, renames and generations.
CREATE TABLE vectors (
    model TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    vec BLOB NOT NULL,            -- float32, L2-normalised
    PRIMARY KEY (model, text_hash)
) WITHOUT ROWID;
-- One row per file that a generation touches: how far down the pipeline it got.
CREATE TABLE progress (
    generation INTEGER NOT NULL,
    path TEXT NOT NULL,
    change TEXT NOT NULL,         -- added | changed | renamed | deleted
    stage TEXT NOT NULL,          -- parse | chunk | embed | write
    state TEXT NOT NULL,          -- queued | done | failed | skipped
    reason TEXT,
    chunks INTEGER,
    embedded INTEGER,
    updated REAL NOT NULL,
    PRIMARY KEY (generation, path)
) WITHOUT ROWID;
"""

# Document frequency per term, to drop very common words from long queries.
V2 = """
CREATE VIRTUAL TABLE chunks_fts_vocab USING fts5vocab(chunks_fts, 'row');
"""

# Links from a file version to paths it cites (resolved in its collection, or a bare file name).
V3 = """
CREATE TABLE links (
    file INTEGER NOT NULL REFERENCES files(id),
    target TEXT NOT NULL,
    PRIMARY KEY (file, target)
) WITHOUT ROWID;
CREATE INDEX links_target ON links(target);
"""

# Freshness (search/index/freshness.py): when a scan first found the collection's root gone (kept for a
# whole rescan interval before its files count as deleted); how many files the watcher saw change
# since the last scan began; when the running scan started; a scan asked for while another scan or
# a build was under way (run once that is published).
V4 = """
ALTER TABLE collections ADD COLUMN root_missing_since REAL;
ALTER TABLE collections ADD COLUMN changes_noticed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE collections ADD COLUMN changes_noticed_at REAL;
ALTER TABLE collections ADD COLUMN scan_started REAL;
ALTER TABLE collections ADD COLUMN scan_requested REAL;
"""

# Chunk ids are never used twice (AUTOINCREMENT), so a reader that has loaded the
# chunks up to some id knows that every chunk written later has a larger one
# (search/query/postings.py keeps FTS5's postings in memory on that basis).
V5 = """
CREATE TABLE chunks_v5 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    file INTEGER NOT NULL REFERENCES files(id),
    ordinal INTEGER NOT NULL,
    heading_path TEXT NOT NULL,
    start_line INTEGER,
    end_line INTEGER,
    page INTEGER,
    end_page INTEGER,
    text TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    text_hash TEXT NOT NULL
);
INSERT INTO chunks_v5 SELECT id, file, ordinal, heading_path, start_line, end_line, page, end_page, text,
    tokens, text_hash FROM chunks;
UPDATE sqlite_sequence SET seq = max(seq, (SELECT coalesce(max(rowid), 0) FROM chunks_fts)) WHERE name = 'chunks_v5';
DROP TABLE chunks;
ALTER TABLE chunks_v5 RENAME TO chunks;
CREATE INDEX chunks_file ON chunks(file);
CREATE INDEX chunks_hash ON chunks(text_hash);
"""

# Which GGUF file each model id was loaded from, written when a generation begins: a reader answers with
# the published generation's model, which may no longer be the configured one (SIFT_MODEL changed and
# the re-embedding is not published yet), so it must find that model's file by its id.
V6 = """
CREATE TABLE models (
    id TEXT NOT NULL,             -- as generations.model and vectors.model
    path TEXT NOT NULL,           -- absolute path of the GGUF file
    recorded REAL NOT NULL,
    PRIMARY KEY (id, path)
) WITHOUT ROWID;
"""

# Scale (issue 15): nothing that runs once per job or per stats call reads every progress row of a generation.
# progress_open holds only the files still in flight (a publish asks whether one is left); progress_trouble the
# failed and skipped ones (stats lists them); progress_counts, kept by triggers in the same transaction as the
# rows, counts files, chunks and embedded chunks per (generation, change, stage, state) for stats. A published
# generation records how many files and chunks it makes searchable (generations.files / chunks; NULL: not
# counted, read from the rows).
V7 = """
CREATE INDEX progress_open ON progress(generation, path)
    WHERE state NOT IN ('failed', 'skipped') AND NOT (stage = 'write' AND state = 'done');
CREATE INDEX progress_trouble ON progress(generation, path) WHERE state IN ('failed', 'skipped');
CREATE TABLE progress_counts (
    generation INTEGER NOT NULL,
    change TEXT NOT NULL,
    stage TEXT NOT NULL,
    state TEXT NOT NULL,
    files INTEGER NOT NULL,
    chunks INTEGER NOT NULL,
    embedded INTEGER NOT NULL,
    PRIMARY KEY (generation, change, stage, state)
) WITHOUT ROWID;
INSERT INTO progress_counts SELECT generation, change, stage, state, count(*), coalesce(sum(chunks), 0),
    coalesce(sum(embedded), 0) FROM progress GROUP BY generation, change, stage, state;
CREATE TRIGGER progress_counts_insert AFTER INSERT ON progress BEGIN
    INSERT INTO progress_counts VALUES (new.generation, new.change, new.stage, new.state, 1,
        coalesce(new.chunks, 0), coalesce(new.embedded, 0))
    ON CONFLICT DO UPDATE SET files = files + 1, chunks = chunks + excluded.chunks,
        embedded = embedded + excluded.embedded;
END;
CREATE TRIGGER progress_counts_delete AFTER DELETE ON progress BEGIN
    UPDATE progress_counts SET files = files - 1, chunks = chunks - coalesce(old.chunks, 0),
        embedded = embedded - coalesce(old.embedded, 0)
    WHERE generation = old.generation AND change = old.change AND stage = old.stage AND state = old.state;
END;
CREATE TRIGGER progress_counts_update AFTER UPDATE ON progress BEGIN
    UPDATE progress_counts SET files = files - 1, chunks = chunks - coalesce(old.chunks, 0),
        embedded = embedded - coalesce(old.embedded, 0)
    WHERE generation = old.generation AND change = old.change AND stage = old.stage AND state = old.state;
    INSERT INTO progress_counts VALUES (new.generation, new.change, new.stage, new.state, 1,
        coalesce(new.chunks, 0), coalesce(new.embedded, 0))
    ON CONFLICT DO UPDATE SET files = files + 1, chunks = chunks + excluded.chunks,
        embedded = embedded + excluded.embedded;
END;
ALTER TABLE generations ADD COLUMN files INTEGER;
ALTER TABLE generations ADD COLUMN chunks INTEGER;
"""

# Files a scan passed over because Sift does not read their kind (.docx, .png …), counted per extension as JSON
# ({".docx": 10, "(no extension)": 2}), so stats and `enqueue --wait` can say they are not searchable.
# NULL: a generation scanned before V8 (or not scanned yet).
V8 = """
ALTER TABLE generations ADD COLUMN unread TEXT;
"""

# Why each file of a collection that is currently skipped or failed for a reason of its own was passed over, with
# what that was decided on: its size, mtime and ctime (seconds, as the walk sees them) and the settings it depends
# on (search.index.remembered). A scan that finds all of them the same carries the outcome forward, unparsed.
V9 = """
CREATE TABLE remembered (
    collection INTEGER NOT NULL REFERENCES collections(id),
    path TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime REAL NOT NULL,
    ctime REAL NOT NULL,
    settings TEXT NOT NULL,       -- search.index.remembered.fingerprint
    stage TEXT NOT NULL,
    state TEXT NOT NULL,          -- skipped | failed
    reason TEXT,
    PRIMARY KEY (collection, path)
) WITHOUT ROWID;
"""

# Work that has taken a worker more than a few seconds (search/index/working.py): the files a chunk or embed job
# is on, since when, and for embedding how many of its chunks are done, so that stats and `enqueue --wait` can say
# what is slow instead of showing counts that do not move. One row per job, deleted when the job ends; the
# worker's pid tells a reader whether the row is still true (a killed worker leaves its row behind).
V10 = """
CREATE TABLE working (
    generation INTEGER NOT NULL,
    stage TEXT NOT NULL,          -- chunk | embed
    path TEXT NOT NULL,           -- the job's first file
    files INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    since REAL NOT NULL,
    done INTEGER,                 -- embed: chunks embedded so far, of total
    total INTEGER,
    pid INTEGER NOT NULL,
    PRIMARY KEY (generation, stage, path)
) WITHOUT ROWID;
"""

# How a generation's files were cut into chunks (ingest.chunk.chunking: the chunker's version, the chunk size
# and overlap in tokens): a scan that finds the published generation cut otherwise reads every file again, so a
# new chunk size or an upgraded parser reaches files that did not change. NULL: built before V11.
V11 = """
ALTER TABLE generations ADD COLUMN chunking TEXT;
"""

# When the last scan that found nothing changed since the published generation began (its claim, scan_started):
# such a scan makes no generation (one per scan left 'no changes' published over the generation that had read the
# edits, and generation numbers climbing), so the collection keeps the time here, for the periodic rescan, stats
# and `enqueue --wait`. NULL: no such scan (or none since V12).
V12 = """
ALTER TABLE collections ADD COLUMN scanned_unchanged REAL;
"""

# Where a PDF chunk's text lies in its pages: JSON [[offset in the text, page, offset in that page], ...], one
# entry per page it touches (the first: where the text starts in its first page; each later page from its start),
# so read_file shows one page's text exactly and not the whole passages that cross into it. NULL: a chunk not
# from a PDF, or written before V13.
V13 = """
ALTER TABLE chunks ADD COLUMN page_starts TEXT;
"""

# Generation ids are never used twice (AUTOINCREMENT): `ingest remove` deletes a collection's generations, and the
# collection added again got the same id for its first generation; a running server, which reloads its catalog
# when a collection's published generation changes, saw the same number and kept the removed chunks (its
# searches failed on them). The table is small (one row per generation kept).
V14 = """
CREATE TABLE generations_v14 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    collection INTEGER NOT NULL REFERENCES collections(id),
    state TEXT NOT NULL,
    model TEXT,
    started REAL NOT NULL,
    discovered REAL,
    finished REAL,
    seen INTEGER NOT NULL DEFAULT 0,
    unchanged INTEGER NOT NULL DEFAULT 0,
    files INTEGER,
    chunks INTEGER,
    unread TEXT,
    chunking TEXT
);
INSERT INTO generations_v14(id, collection, state, model, started, discovered, finished, seen, unchanged, files,
    chunks, unread, chunking) SELECT id, collection, state, model, started, discovered, finished, seen, unchanged,
    files, chunks, unread, chunking FROM generations;
-- (the copy sets sqlite_sequence to the highest id kept; the rename carries it over)
DROP TABLE generations;
ALTER TABLE generations_v14 RENAME TO generations;
CREATE INDEX generations_collection ON generations(collection, state);
"""

# A file version's ctime (seconds, as the walk sees it), compared with size and mtime to decide whether a scan
# hashes the file: an edit of the same length with its mtime set back (cp -p, rsync -t) was missed for good.
# NULL: written before V15, or read so soon after its last change that another write could follow in the same
# clock tick (ingest.changes.settled_ctime): the next scan hashes the file and keeps its ctime if it is the same.
V15 = """
ALTER TABLE files ADD COLUMN ctime REAL;
"""

# The files by modified time, for resources/list's pages (file_reads.newest_files: newest first, from a position):
# without it each page sorted every published file, 28-37 ms of CPU a page at 200,000 files (1,000 pages to
# list them all), 0.2-0.5 ms with it. And the notes that a same-stem PDF is attached to, for list_files, which
# lists those PDFs (listing_reads.listing): finding them read every file's meta, 127 -> 260 ms of CPU a call at
# 200,000 files; with the index, 130 ms. A reader of an index not yet migrated does without them, only slower.
V16 = """
CREATE INDEX files_mtime ON files(mtime);
CREATE INDEX files_attached ON files(collection) WHERE kind = 'note' AND meta LIKE '%"attachments"%';
"""

# A big file embedded in the background, outside its collection's build (workers.tasks.embed_in_background): what
# it was chunked from (its size, mtime and ctime, as the walk sees them, and the settings: search.index.remembered),
# how far its embedding has got and which worker does it (NULL: its job waits in the queue). A scan that finds the file so
# leaves it to that job, and a finished one's row stays until a scan reads the file again (its vectors cached),
# keeping them from the clean-up of unused vectors meanwhile.
V17 = """
CREATE TABLE background (
    collection INTEGER NOT NULL REFERENCES collections(id),
    path TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime REAL NOT NULL,
    ctime REAL NOT NULL,
    settings TEXT NOT NULL,
    bytes INTEGER NOT NULL,       -- the file's size, for stats
    total INTEGER NOT NULL,       -- chunks to embed
    done INTEGER NOT NULL,        -- of those, embedded (cached) so far
    since REAL NOT NULL,          -- when the chunk stage handed it on: also the job's token
    pid INTEGER,                  -- the worker embedding it; NULL: its job waits in the queue
    PRIMARY KEY (collection, path)
) WITHOUT ROWID;
"""

# Why a big file's background job failed for good (an exception in a slice, its model's file gone): the row
# stays, so that stats, search's freshness line and list_files say so and a scan leaves the unchanged file failed
# as before, where it was only in the worker's log and the file read "being embedded" until the next scan handed it
# on again (and failed again). NULL: not failed. A change to the file, or ``ingest retry-failed``, tries it again.
# And a big file's chunks as the build that handed it on cut them (zlib-compressed JSON of store.ChunkRow), keyed by
# its path, content hash and the settings they were cut with: the build that publishes the file once its vectors
# are cached takes them instead of cutting it again (counting its tokens: that build took 2.0 s for a note of
# 4,000 chunks, 0.5 s now; bench/big_rebuild.py). Dropped with the unused vectors, once no build or background job is on.
V18 = """
ALTER TABLE background ADD COLUMN failed TEXT;
CREATE TABLE cut (
    collection INTEGER NOT NULL REFERENCES collections(id),
    path TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    settings TEXT NOT NULL,
    chunks BLOB NOT NULL,
    PRIMARY KEY (collection, path)
);
"""

# When a consumer last started while the generation was being built, and how many of its files were done then
# (store.mark_resumed): its ETA goes by the pace since, not since discovery. A worker stopped for 10 minutes
# halfway took those minutes as work: 'ETA 17.7 min' became 33.7 min once it went on, and came down as slowly.
# NULL: no consumer started during the build (or before V19).
V19 = """
ALTER TABLE generations ADD COLUMN resumed REAL;
ALTER TABLE generations ADD COLUMN resumed_done INTEGER;
"""

# The date a passage is about, where its file says one (unix time): a mail message's Date, a daily note's date in its
# file name, a note's front matter date (ingest.passage_dates). Search's date_after / date_before go by it, else by
# the file's mtime: a mailbox of ten years was all 'modified last week'. NULL: none said, or written before V20 (the
# chunker's VERSION 18 has a scan read every file again, which fills it). Its index holds the dated passages alone, so
# that a reader's catalog loads their dates without reading every chunk row (catalog_reads.catalog_dates).
V20 = """
ALTER TABLE chunks ADD COLUMN dated REAL;
CREATE INDEX chunks_dated ON chunks(dated) WHERE dated IS NOT NULL;
"""

# A passage's own tags (JSON list), where its file holds many items with tags of their own: an Evernote note's
# <tag>s, a mail message's Gmail labels (ingest.enex, ingest.mail; Section.tags). A tag was a file's alone, so an
# export's note tagged 'recipe' was not told from the rest, and a Takeout's per-message labels were words of a
# 'Labels:' line only. A '#tag' in a query matches a passage's tags or its file's (search.query.tags). NULL: none
# of its own, or written before V21 (the chunker's VERSION 20 has a scan read every file again, which fills it).
# Its index holds the tagged passages alone, so that the tags held are listed without reading every chunk row.
V21 = """
ALTER TABLE chunks ADD COLUMN tags TEXT;
CREATE INDEX chunks_tagged ON chunks(tags) WHERE tags IS NOT NULL;
"""

# The tags of each file and passage, one row a tag, as a search names them (search.index.names.tag_names:
# casefolded, without '#'): a file's own (front matter, inline #tags, an org file's FILETAGS; chunk NULL: every passage
# of the file holds it) and a passage's own (chunks.tags). search, similar and list_files keep only what carries the
# tags asked for (``tags=['recipe']``), checked per candidate inside the SQL that selects them, and a nested tag
# ('project/sift') is found from its parent ('project') by a range of the index. A tag was JSON in files.meta and
# chunks.tags alone, readable only by parsing every row. Filled at migration from those columns (``_fill_tags``);
# rows go with their file (store._delete_file_rows).
V22 = """
CREATE TABLE IF NOT EXISTS tags (
    tag TEXT NOT NULL,
    file INTEGER NOT NULL REFERENCES files(id),
    chunk INTEGER                 -- NULL: the file's tag, held by each of its passages
);
CREATE INDEX IF NOT EXISTS tags_tag ON tags(tag, file, chunk);
CREATE INDEX IF NOT EXISTS tags_file ON tags(file, chunk, tag);
CREATE INDEX IF NOT EXISTS tags_chunk ON tags(chunk, tag) WHERE chunk IS NOT NULL;
"""


def _fill_tags(conn: sqlite3.Connection) -> None:
    """V22's rows for the files and passages written before it (their tags are JSON in files.meta, chunks.tags),
    in place of any there (an index whose version was set back, as a test makes an older one)."""
    from search.index.names import tag_names
    conn.execute("DELETE FROM tags")
    rows = conn.execute("SELECT id, json_extract(meta, '$.tags') FROM files WHERE json_valid(meta) "
                        "AND json_extract(meta, '$.tags') IS NOT NULL").fetchall()
    conn.executemany("INSERT INTO tags(tag, file, chunk) VALUES (?, ?, NULL)",
                     [(tag, file) for file, held in rows for tag in sorted(tag_names(held))])
    rows = conn.execute("SELECT id, file, tags FROM chunks INDEXED BY chunks_tagged WHERE tags IS NOT NULL").fetchall()
    conn.executemany("INSERT INTO tags(tag, file, chunk) VALUES (?, ?, ?)",
                     [(tag, file, chunk) for chunk, file, own in rows for tag in sorted(tag_names(own))])


# The mail messages of each file, one row a message (ingest.mail.message_row): its Message-ID, its thread's key, where it
# is in its file (line, lines; NULL lines: the whole file, an .eml), its Subject and when it was sent. A thread is
# joined across a collection's mail files by them (search.query.mail_threads): a reply saved as an .eml to a message
# of a mailbox, or a message of Thunderbird's Inbox and its reply in Sent, were not (an .eml's Message-ID was JSON in
# files.meta, a mailbox's none). Filled at migration for the .eml files (from files.meta); a mailbox's rows come when
# it is read again (the chunker's VERSION 23 has a scan read every file again). Rows go with their file.
V23 = """
CREATE TABLE IF NOT EXISTS mail_messages (
    file INTEGER NOT NULL REFERENCES files(id),
    message_id TEXT,
    thread TEXT,
    line INTEGER NOT NULL,
    lines INTEGER,                -- NULL: the whole file (an .eml)
    subject TEXT,
    sent TEXT                     -- '2024-03-05T23:30:00-05:00', its sender's offset (ingest.mail.sent_time)
);
CREATE INDEX IF NOT EXISTS mail_messages_id ON mail_messages(message_id);
CREATE INDEX IF NOT EXISTS mail_messages_thread ON mail_messages(thread);
CREATE INDEX IF NOT EXISTS mail_messages_file ON mail_messages(file, line);
"""


def _fill_mail(conn: sqlite3.Connection) -> None:
    """V23's rows for the .eml files written before it (their Message-ID and thread's key are in files.meta)."""
    conn.execute("DELETE FROM mail_messages")
    conn.execute("INSERT INTO mail_messages(file, message_id, thread, line, lines, subject, sent) "
                 "SELECT id, json_extract(meta, '$.message_id'), json_extract(meta, '$.mail_thread'), 1, NULL, title, "
                 "coalesce(json_extract(meta, '$.mail_time'), json_extract(meta, '$.date')) FROM files "
                 "WHERE meta LIKE '%\"mail_thread\"%' AND json_valid(meta) "
                 "AND json_extract(meta, '$.mail_thread') IS NOT NULL")


# A mail message's Subject without 'Re:' … (topic), its From's and its From, To and Cc's addresses, and whether it is a
# reply naming no parent (by_subject: a phone's 'Re: Budget' without In-Reply-To nor References): such a reply is
# joined by them to the thread of a message in another mail file of the collection (search.query.mail_threads), as
# ingest.mail.Threads joins one within its mailbox; a phone's reply in Thunderbird's Sent was joined to nothing in
# Inbox. NULL in the rows written before V24 (the chunker's VERSION 24 has a scan read every file again).
# The columns are added by _add_mail_people, those not there yet: ALTER TABLE has no IF NOT EXISTS, and an index
# set back to an older version with its tables kept (as tests make one) has them.
V24 = ""
MAIL_PEOPLE = {"topic": "TEXT", "senders": "TEXT", "people": "TEXT", "by_subject": "INTEGER"}


def _add_mail_people(conn: sqlite3.Connection) -> None:
    """V24's columns of mail_messages, and the index of its topics."""
    held = {row[1] for row in conn.execute("PRAGMA table_info(mail_messages)")}
    for name, kind in MAIL_PEOPLE.items():
        if name not in held:
            conn.execute(f"ALTER TABLE mail_messages ADD COLUMN {name} {kind}")
    conn.execute("CREATE INDEX IF NOT EXISTS mail_messages_topic ON mail_messages(topic)")


# The mail messages read before V24 (senders NULL, as _add_mail_people left them): a scan reads their files again
# once (search.index.mail_reads.before_people, workers.tasks.discover) and stats counts them. Without it, each scan
# and each stats sought every note file of a collection (50,000 notes: about 0.1 s); the index holds only those rows,
# none once they are read again.
V25 = """
CREATE INDEX IF NOT EXISTS mail_messages_before_people ON mail_messages(file) WHERE senders IS NULL;
"""

# The toneless pinyin of each pair of Chinese characters the passages hold (search.query.pinyin.pairs: key 'huancun',
# word 缓存), written with each file version (store._insert_version) and never taken out: a pair of a file since gone
# costs a row, and search looks up only the pairs some passage holds. A query's pinyin ('huancun', 'Wang Wei') no passage
# holds is also searched as the Chinese it stands for; 'huancun' found no note saying 缓存. Filled at migration from
# the passages and file titles written before it (``_fill_pinyin``).
V26 = """
CREATE TABLE IF NOT EXISTS pinyin (
    key TEXT NOT NULL,
    word TEXT NOT NULL,
    PRIMARY KEY (key, word)
) WITHOUT ROWID;
"""
# V27: the table holds the pinyin of Chinese words (jieba's cut of the passages: 缓存, 数据库, 王伟), not of every pair
# of characters: pairs across two words (吃哪 of 吃哪些, 物含 of 食物含有) made the English 'china' and 'wuhan' pinyin
# of Chinese passages, which became their hits. Its rows are written again (V28's ``_fill_pinyin``).
V27 = """
DELETE FROM pinyin;
"""
# V28: and the pairs of characters inside a word of three or more (脑梗 of 脑梗塞: jieba's search mode kept 脑梗塞 and
# 梗塞 alone, and 'naogeng' found nothing), never a pair across two words. Its rows are written again.
V28 = """
DELETE FROM pinyin;
"""
# V29: and each word of jieba's dictionary a run of Chinese holds (its full mode), across two words of the sentence's
# cut too: 饭后 of 晚饭后 (cut 晚饭 后) and 诊治 of 复诊治疗 (复诊 治疗); 'fanhou' and 'zhenzhi' found nothing. A pair no
# dictionary holds as a word (吃哪 of 吃哪些: 'china') is still not kept. Its rows are written again.
V29 = """
DELETE FROM pinyin;
"""
# V30: the class of the error a file failed with (``ValueError``, ``ProgrammingError``), for a bug report: the worker's
# log named it, `ingest stats --json` did not. The reason users read stays in plain words. NULL: a failure that is no
# error's (a file that vanished, a skip), or one recorded before V30. Kept with a remembered outcome too, so a scan
# that carries a failure on keeps its class. Added by ``_add_error`` where it is missing.
V30 = ""


def _add_error(conn: sqlite3.Connection) -> None:
    """V30's columns, unless a table has it (an index made older by hand, as tests make one, kept it)."""
    for table in ("progress", "remembered"):
        if "error" not in {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN error TEXT")


# V31: and the class of the error a big file's background embedding failed with for good (``background.failed``'s
# words stay as they were): its file failed with none in stats, though a file embedded with its build has one. A scan
# that carries the failure on keeps it. Added by ``_add_background_error`` where it is missing.
V31 = ""


def _add_background_error(conn: sqlite3.Connection) -> None:
    if "error" not in {row[1] for row in conn.execute("PRAGMA table_info(background)")}:
        conn.execute("ALTER TABLE background ADD COLUMN error TEXT")


PINYIN_BATCH = 2000  # passages read at a time by _fill_pinyin


def _fill_pinyin(conn: sqlite3.Connection) -> None:
    """The pinyin table's rows for the passages written before it and for their files' titles (the title column's
    text: title, aliases, tags, author, file name), each word computed and written once (``held``): V29's (V26
    creates the table, empty; V27 and V28 empty it)."""
    import json

    from search.query.pinyin import words
    from search.query.text import index_form, title_text
    held: set[str] = set()
    for table, columns in (("chunks", "heading_path, text"), ("files", "path, title, meta")):
        last = 0
        while rows := conn.execute(f"SELECT id, {columns} FROM {table} WHERE id > ? ORDER BY id LIMIT ?",
                                   (last, PINYIN_BATCH)).fetchall():
            texts = [part or "" for row in rows for part in (row[1], row[2])] if table == "chunks" else \
                [title_text(row[1], row[2], json.loads(row[3] or "{}")) for row in rows]
            written = words([index_form(text) for text in texts], held)
            conn.executemany("INSERT OR IGNORE INTO pinyin(key, word) VALUES (?, ?)", written)
            held.update(pair for _, pair in written)
            last = rows[-1][0]


MIGRATIONS: list[str] = [V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V12, V13, V14, V15, V16, V17, V18, V19, V20,
                         V21, V22, V23, V24, V25, V26, V27, V28, V29, V30, V31]
# what a migration writes that SQL alone cannot (the tags casefolded as Python does); V27 and V28 empty the pinyin
# table and V29 fills it, which V28 did before V29 (an index of V26 or V27 fills it once, not twice)
FILLS = {22: _fill_tags, 23: _fill_mail, 24: _add_mail_people, 29: _fill_pinyin, 30: _add_error,
         31: _add_background_error}


class SchemaTooNew(Exception):
    """The index was written by a newer Sift."""


def version(conn: sqlite3.Connection) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the database up to the newest schema; returns the version reached."""
    current = version(conn)
    if current > len(MIGRATIONS):
        raise SchemaTooNew(
            f"index schema version {current} is newer than this Sift ({len(MIGRATIONS)}): upgrade Sift"
        )
    for number in range(current + 1, len(MIGRATIONS) + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            if version(conn) >= number:  # another process migrated first
                conn.execute("ROLLBACK")
                continue
            for statement in _statements(MIGRATIONS[number - 1]):
                conn.execute(statement)
            if number in FILLS:
                FILLS[number](conn)
            conn.execute(f"PRAGMA user_version = {number}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return version(conn)


def _statements(script: str) -> list[str]:
    parts, buffer = [], ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--"):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            parts.append(buffer.strip())
            buffer = ""
    return [p for p in parts if p]
