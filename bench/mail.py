"""A mail archive (bench/mail_corpus.py: saved .eml messages and a Takeout .mbox, English, German, Spanish and
Chinese, HTML-only bodies, replies quoting the message they answer, GBK / ISO-8859-1 / windows-1252, base64 and
quoted-printable): where the message a question is about ranks.

Writes the archive, indexes it in this process (huey in immediate mode: the real pipeline, SQLite and model), then
asks each question of mail_corpus.QUESTIONS in keyword and in hybrid search (limit 10) and prints the rank of the
first hit that is a message answering it (its file, and for the mbox its message by its subject; 99: not in the
ten), then how many came first, how many in the top five, and the MRR. The model is MiniLM unless SIFT_MODEL says
otherwise.

    .venv/bin/python bench/mail.py
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
# this folder holds bench/ingest.py: the repository first (after PYTHONPATH), then this folder
sys.path = [p for p in sys.path if Path(p or ".").resolve() != HERE] + [str(HERE.parent), str(HERE)]
from mail_corpus import IN_MBOX, MESSAGES, QUESTIONS, write  # noqa: E402
from in_process import ask_questions, index_in_process  # noqa: E402


def answers(hit, wanted: list[str]) -> bool:
    for key in wanted:
        if key not in IN_MBOX:
            if hit.path.endswith(f"Mail/{key}.eml"):
                return True
            continue
        subject = next(m[4] for m in MESSAGES if m[0] == key)
        if hit.path.endswith(".mbox") and (hit.heading_path or "") == subject:
            return True
    return False


def main() -> int:
    scratch = Path(tempfile.mkdtemp(prefix="sift-mail-"))
    os.environ["SIFT_HOME"] = str(scratch / "home")
    os.environ.setdefault("SIFT_MODEL", "minilm")
    root = scratch / "mail"
    print(f"{write(root)} messages written to {root}", flush=True)
    report, engine = index_in_process(root, "mail")
    print({k: report.get(k) for k in ("files", "chunks", "not_read", "failed") if k in report}, flush=True)
    ask_questions(engine, QUESTIONS, answers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
