"""What the question every scan asks since stop 49 costs (search.index.mail_reads.before_people): which mail files
were read before schema V24, to read them once more. An index of NOTES notes (default 100,000) and 20,000 mail files
whose messages were all read since (none left to find, as in almost every scan), written here with plain SQL rows;
the median of RUNS calls, for the collection's current files and its published ones.

    .venv/bin/python bench/mail_before_v24.py [NOTES]
"""
from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from search.index import db, mail_reads  # noqa: E402

RUNS = 9
MAIL = 20_000


def main() -> int:
    notes = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory(prefix="sift-before-v24-") as folder:
        conn = db.connect(Path(folder) / "index.db")
        conn.execute("INSERT INTO collections(id, name, root, published, created) VALUES (1, 'n', '/n', 1, 0)")
        conn.executemany("INSERT INTO files(id, collection, path, kind, size, mtime, sha256, title, meta, gen_from) "
                         "VALUES (?, 1, ?, 'note', 1, 0, 'x', '', '{}', 1)",
                         [(i, f"d{i % 100}/n{i}.md") for i in range(1, notes + 1)])
        conn.executemany("INSERT INTO mail_messages(file, message_id, thread, line, lines, subject, sent, senders) "
                         "VALUES (?, ?, ?, 1, 1, 's', NULL, '[]')",
                         [(i, f"<m{i}>", f"<m{i}>") for i in range(1, min(MAIL, notes) + 1)])
        conn.commit()
        for published in (False, True):
            times = []
            for _ in range(RUNS):
                began = time.perf_counter()
                mail_reads.before_people(conn, 1, published)
                times.append(time.perf_counter() - began)
            print(f"{notes:,} notes, {'published' if published else 'current'} files: median "
                  f"{statistics.median(times) * 1000:.2f} ms")
        conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
