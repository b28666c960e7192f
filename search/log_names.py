"""Which files are logs, by their names: ingest reads them as a log's days (ingest.logs), search shows a hit's
lines apart (search.query.snippet). Here, not in ingest.kinds, as search imports nothing of ingest."""
from __future__ import annotations

import re

# a log (an incident's excerpt, app.log) is text, its lines as written; not a chat's, whose detection a .txt goes
# through. LaTeX's main.log beside main.tex is its build's output, skipped (ingest.files.latex_log)
LOG_EXTENSIONS = {".log"}
# a log by its name without '.log' last, as syslog and logrotate name them: 'syslog', 'syslog.1', 'messages.2',
# 'app.log.1', 'app.log-20240314' (logrotate's dateext), 'auth.log.2024-03-14'; a compressed one ('app.log.3.gz')
# is none (not text)
LOG_NAME = re.compile(r"(?i)(?:[^/]*\.log|syslog|messages|maillog|dmesg)(?:[.-](?:\d{1,3}|\d{8}|\d{4}-\d\d-\d\d))?")


def is_log(path: str) -> bool:
    """Whether ``path`` names a log: a '.log', or a rotated or system log by its name (LOG_NAME)."""
    name = path.rsplit("/", 1)[-1]
    return name.lower().endswith(tuple(LOG_EXTENSIONS)) or LOG_NAME.fullmatch(name) is not None
