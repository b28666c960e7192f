"""A folder of Word documents beside Markdown notes (meeting minutes, a project report with tables, a thesis draft,
a policy with footnotes, a contact sheet; written here with python-docx, no data copied in): where the file a
question is about ranks.

Writes the folder, indexes it in this process (huey in immediate mode: the real pipeline, SQLite and model), then
asks each question of QUESTIONS, keyword and hybrid (limit 10), and prints the rank of the first hit that answers it
(the file, and where a heading is named, a heading path holding it; 99: not in the ten), then how many came first,
how many in the top five, and the mean reciprocal rank. The model is MiniLM unless SIFT_MODEL says otherwise.

    .venv/bin/python bench/word.py
    PYTHONPATH=../older-checkout .venv/bin/python bench/word.py   # another Sift's reading (before/after)
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path = [p for p in sys.path if Path(p or ".").resolve() != HERE] + [str(HERE.parent), str(HERE)]
from in_process import ask_questions, index_in_process  # noqa: E402

NOTES = {
    "notes/ferry.md": "# Ferry timetable\n\nThe ferry to Skarvik leaves hourly from pier 3; the winter timetable "
                      "starts in November.\n",
    "notes/reading.md": "# Reading list\n\n- Estuary sediment dynamics, a review\n- Coastal flooding models\n",
    "notes/budget.md": "# Household budget\n\nGroceries, rent and the car loan; savings go to the holiday fund.\n",
    "notes/garden.md": "# Garden\n\nPlant the tulip bulbs before the first frost; prune the apple trees in "
                       "February.\n",
}

# (question, answer: 'file' or 'file#heading words')
QUESTIONS = [
    ("who chaired the harbour committee meeting", "minutes/2024-03 harbour committee.docx#Attendees"),
    ("Ingrid Halvorsen", "minutes/2024-03 harbour committee.docx"),
    ("what did the harbour committee decide about dredging", "minutes/2024-03 harbour committee.docx#Decisions"),
    ("action items from the April steering meeting", "minutes/2024-04 steering group.docx#Action items"),
    ("who owns the sonar survey", "reports/dredging report.docx#Costs"),
    ("how much does silt removal cost", "reports/dredging report.docx#Costs"),
    ("Okonkwo", "reports/dredging report.docx"),
    ("risks of storm surges at the quay", "reports/dredging report.docx#Risks"),
    ("methodology chapter of my thesis", "thesis/draft.docx#Methodology"),
    ("how were sediment cores sampled", "thesis/draft.docx#Sampling"),
    ("thesis results on turbidity", "thesis/draft.docx#Results"),
    ("related work on estuary morphology", "thesis/draft.docx#Related work"),
    ("Lindqvist 2019 measurements", "thesis/draft.docx"),
    ("remote work policy how many days", "policies/remote work policy.docx#Eligibility"),
    ("equipment allowance for home office", "policies/remote work policy.docx#Equipment"),
    ("which law does the remote work policy cite", "policies/remote work policy.docx"),
    ("phone number of the harbour master", "contacts.docx"),
    ("Marta Varga email", "contacts.docx"),
    ("who approved the steering group budget", "minutes/2024-04 steering group.docx#Decisions"),
    ("next steering group meeting date", "minutes/2024-04 steering group.docx"),
]


def write(root: Path) -> int:
    import docx
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")

    def save(rel: str, d) -> None:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        d.save(root / rel)

    def table(d, rows) -> None:
        t = d.add_table(rows=len(rows), cols=len(rows[0]))
        for i, row in enumerate(rows):
            for j, value in enumerate(row):
                t.cell(i, j).text = value

    d = docx.Document()
    d.core_properties.title = "Harbour committee, March 2024"
    d.add_heading("Attendees", 1)
    d.add_paragraph("Ingrid Halvorsen (chair), Tomas Brenner, Marta Varga, Chidi Okonkwo.")
    d.add_heading("Agenda", 1)
    for item in ("Dredging of the inner basin", "Ferry pier repairs", "Any other business"):
        d.add_paragraph(item, style="List Number")
    d.add_heading("Decisions", 1)
    d.add_paragraph("The committee approved dredging the inner basin in May, within the budget of the report.")
    d.add_paragraph("Pier repairs are postponed to the autumn.")
    save("minutes/2024-03 harbour committee.docx", d)

    d = docx.Document()
    d.add_paragraph("Steering group, April 2024", style="Title")
    d.add_heading("Decisions", 1)
    d.add_paragraph("Tomas Brenner approved the revised budget of 16,500 euros for the survey season.")
    d.add_heading("Action items", 1)
    table(d, [["Action", "Who", "When"], ["Send the tender documents", "Marta Varga", "15 April"],
              ["Book the survey vessel", "Chidi Okonkwo", "30 April"], ["Inform the ferry operator", "Ingrid Halvorsen",
                                                                         "end of April"]])
    d.add_paragraph("The next steering group meets on 14 May in the harbour office.")
    save("minutes/2024-04 steering group.docx", d)

    d = docx.Document()
    d.core_properties.title = "Dredging of the inner basin: report"
    d.add_heading("Summary", 1)
    d.add_paragraph("The inner basin has silted up by 40 cm since 2015; dredging restores the ferry's draught.")
    d.add_heading("Costs", 1)
    table(d, [["Item", "Owner", "Cost (EUR)"], ["Sonar survey", "Okonkwo", "4,000"],
              ["Silt removal and disposal", "Varga", "12,500"], ["Supervision", "Halvorsen", "1,500"]])
    d.add_heading("Risks", 1)
    d.add_paragraph("Storm surges in autumn may wash silt back and damage the quay wall.")
    save("reports/dredging report.docx", d)

    d = docx.Document()
    d.add_paragraph("Sediment transport in a tidal estuary", style="Title")
    chapters = {
        "Introduction": ["Estuaries trap sediment where river and tide meet."],
        "Related work": ["Earlier studies of estuary morphology used bathymetric surveys.",
                         "Lindqvist (2019) measured suspended sediment at twelve stations."],
        "Methodology": [],
        "Results": ["Turbidity peaked two hours after high water at every station.",
                    "Cores showed alternating sand and mud layers."],
        "Discussion": ["The turbidity maximum moves upstream in dry summers."],
    }
    for chapter, paragraphs in chapters.items():
        d.add_heading(chapter, 1)
        if chapter == "Methodology":
            d.add_heading("Study site", 2)
            d.add_paragraph("The study covers the lower 12 km of the estuary.")
            d.add_heading("Sampling", 2)
            d.add_paragraph("Sediment cores were taken with a gravity corer at low tide, monthly for a year.")
        for text in paragraphs:
            d.add_paragraph(text + " " + "The data support this reading of the estuary's dynamics. " * 3)
    save("thesis/draft.docx", d)

    d = docx.Document()
    d.core_properties.title = "Remote work policy"
    d.add_heading("Eligibility", 1)
    d.add_paragraph("Staff may work from home up to three days a week after their probation period.")
    d.add_heading("Equipment", 1)
    d.add_paragraph("A one-off allowance of 500 euros covers a desk chair and a monitor.")
    d.add_heading("Legal basis", 1)
    paragraph = d.add_paragraph("This policy follows the Working Environment Act, section 4.")
    d.add_comment(paragraph.runs[0], text="Check the section number with legal", author="HR")
    save("policies/remote work policy.docx", d)

    d = docx.Document()
    d.add_paragraph("Contacts")
    table(d, [["Name", "Role", "Phone", "Email"],
              ["Ingrid Halvorsen", "Harbour master", "+47 555 0101", "ingrid@harbour.example"],
              ["Marta Varga", "Procurement", "+47 555 0102", "marta.varga@harbour.example"],
              ["Chidi Okonkwo", "Surveyor", "+47 555 0103", "chidi@survey.example"]])
    save("contacts.docx", d)
    return len(NOTES) + 6


def answers(hit, wanted: str) -> bool:
    path, _, heading = wanted.partition("#")
    return hit.path == path and (not heading or heading in (hit.heading_path or ""))


def main() -> int:
    scratch = Path(tempfile.mkdtemp(prefix="sift-word-"))
    os.environ["SIFT_HOME"] = str(scratch / "home")
    os.environ.setdefault("SIFT_MODEL", "minilm")
    root = scratch / "documents"
    print(f"{write(root)} files written to {root}", flush=True)
    report, engine = index_in_process(root, "documents")
    published = report.get("published") or {}
    print({"files": report["files"], "passages": report["chunks"], "unread": published.get("unread"),
           "failures": published.get("failures")}, flush=True)
    ask_questions(engine, QUESTIONS, answers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
