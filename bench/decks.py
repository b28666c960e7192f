"""A folder of slide decks beside Markdown notes (a lecture with speaker notes, a roadmap deck with a table, grouped
shapes and a hidden backup slide, an Impress deck of a field trip; written here with zipfile, no data copied in):
where the deck a question is about ranks. (bench/slides.py is another question: a PDF deck read as a passage a page.)

Writes the folder, indexes it in this process (huey in immediate mode: the real pipeline, SQLite and model), then
asks each question of QUESTIONS, keyword and hybrid (limit 10), and prints the rank of the first hit that answers it
(the file, and where a slide is named, a heading path holding it; 99: not in the ten), then how many came first,
how many in the top five, and the mean reciprocal rank. The model is MiniLM unless SIFT_MODEL says otherwise.

    .venv/bin/python bench/decks.py
    PYTHONPATH=../older-checkout .venv/bin/python bench/decks.py   # another Sift's reading (before/after)
"""
from __future__ import annotations

import io
import os
import sys
import tempfile
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent
sys.path = [p for p in sys.path if Path(p or ".").resolve() != HERE] + [str(HERE.parent), str(HERE)]
from in_process import ask_questions, index_in_process  # noqa: E402

NOTES = {
    "notes/ferry.md": "# Ferry timetable\n\nThe ferry to Skarvik leaves hourly from pier 3; the winter timetable "
                      "starts in November.\n",
    "notes/reading.md": "# Reading list\n\n- Introduction to information retrieval, chapter 8\n- Search engines: "
                        "information retrieval in practice\n",
    "notes/garden.md": "# Garden\n\nPlant the tulip bulbs before the first frost; prune the apple trees in "
                       "February.\n",
    "notes/standup.md": "# Standup\n\nThe team discussed the sprint board and the release checklist.\n",
}

# a slide: (title, body paragraphs, speaker notes, extra: 'table' rows, 'group' texts, 'hidden')
LECTURE = [
    ("Lecture 5: Evaluating search engines", ["IR701 Information Retrieval, Spring 2026"], [], {}),
    ("Precision", ["The fraction of retrieved documents that are relevant", "Precision at k counts the top k only"],
     ["Remind the students that precision alone rewards returning very little; ask them for a case where that "
      "matters."], {}),
    ("Recall", ["The fraction of relevant documents that are retrieved", "Hard to measure on large collections"],
     [], {}),
    ("Mean average precision", ["Average the precision at each relevant document", "Then average over queries"],
     ["Work through the example on the whiteboard: three queries."], {}),
    ("nDCG", ["Graded relevance", "Gains discounted by the log of the rank", "Normalised by the ideal ranking"],
     [], {}),
    ("Pooling", ["Judge only the union of the top 100 documents of each submitted run",
                 "Unjudged documents count as not relevant"], ["This is how TREC builds its judgments."], {}),
    ("Assessor agreement", ["Two judges agree on about 70 percent of documents"],
     ["Cohen's kappa corrects for chance agreement."], {}),
    ("Click models", ["Users click what they see", "Position bias makes clicks on low ranks rarer"], [], {}),
]
ROADMAP = [
    ("Q3 product roadmap", ["Platform team, July 2026"], [], {}),
    ("Milestones", [], ["Dates are tentative until the steering meeting."],
     {"table": [["Milestone", "Owner", "Date"], ["Mobile app beta", "Priya Natarajan", "12 August"],
                ["Payments migration to the new provider", "Tomás Herrera", "30 September"],
                ["Accessibility audit", "Lena Vogel", "15 September"]]}),
    ("Risks", ["Vendor contract", "Hiring"],
     ["The biggest risk is the payment vendor's contract renewal slipping past September; a fallback is to keep "
      "the old provider for one more quarter."], {}),
    ("Team", [], [], {"group": ["Chinedu Okafor: design lead", "Sara Lindqvist: QA", "Tomás Herrera: backend"]}),
    ("Backup: budget", ["Contractors 120,000 euros", "Cloud costs 45,000 euros a quarter"], [], {"hidden": True}),
]
TRIP = [
    ("Estuary field trip", ["Year 9 geography, 14 May"], [], {}),
    ("Packing list", ["Waterproof boots", "Clipboard and pencil", "Packed lunch"], [], {}),
    ("Meeting point", ["Meet at the harbour car park at 8:15", "The coach leaves at 8:30 sharp"], [], {}),
    ("Activities", ["Measure the river's width and depth", "Sample sediment at three sites"],
     ["If it rains heavily we go to the maritime museum instead and do the worksheet there."], {}),
]

# (question, answer: 'file' or 'file#words of the slide's heading')
QUESTIONS = [
    ("which lecture of the retrieval course is about evaluation", "talks/ir lecture 5.pptx"),
    ("how is mean average precision computed across queries", "talks/ir lecture 5.pptx#Mean average precision"),
    ("metric with graded judgments and a logarithmic discount", "talks/ir lecture 5.pptx#nDCG"),
    ("what should I remind the students about precision", "talks/ir lecture 5.pptx#Precision"),
    ("how does TREC choose which documents to judge", "talks/ir lecture 5.pptx#Pooling"),
    ("how often do two relevance judges agree", "talks/ir lecture 5.pptx#Assessor agreement"),
    ("why do people click less on results further down", "talks/ir lecture 5.pptx#Click models"),
    ("when does the mobile app beta ship", "work/q3 roadmap.pptx#Milestones"),
    ("who owns the payments migration", "work/q3 roadmap.pptx#Milestones"),
    ("biggest risk on the Q3 roadmap", "work/q3 roadmap.pptx#Risks"),
    ("how much do we spend on contractors", "work/q3 roadmap.pptx#Backup: budget"),
    ("Chinedu Okafor", "work/q3 roadmap.pptx#Team"),
    ("what should the pupils bring on the field trip", "teaching/field trip.odp#Packing list"),
    ("when does the coach leave", "teaching/field trip.odp#Meeting point"),
    ("what happens if it rains on the field trip", "teaching/field trip.odp#Activities"),
]

PNS = ('xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
       'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
       'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"')
RELS = 'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"'


def _shape(paragraphs, placeholder: str | None = None, y: int = 0) -> str:
    ph = f'<p:ph type="{placeholder}"/>' if placeholder else ""
    body = "".join(f"<a:p><a:r><a:t>{escape(p)}</a:t></a:r></a:p>" for p in paragraphs)
    return (f'<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr>{ph}</p:nvPr></p:nvSpPr><p:spPr>'
            f'<a:xfrm><a:off x="0" y="{y}"/></a:xfrm></p:spPr><p:txBody><a:bodyPr/>{body}</p:txBody></p:sp>')


def _slide(title, body, extra) -> str:
    shapes = [_shape([title], "title"), _shape(body, "body") if body else ""]
    if "table" in extra:
        rows = "".join("<a:tr>" + "".join(f"<a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:t>{escape(c)}</a:t></a:r></a:p>"
                                          "</a:txBody></a:tc>" for c in row) + "</a:tr>" for row in extra["table"])
        shapes.append('<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="5" name="t"/><p:cNvGraphicFramePr/><p:nvPr/>'
                      '</p:nvGraphicFramePr><p:xfrm><a:off x="0" y="900"/></p:xfrm><a:graphic><a:graphicData>'
                      f'<a:tbl>{rows}</a:tbl></a:graphicData></a:graphic></p:graphicFrame>')
    if "group" in extra:
        inner = "".join(_shape([t], None, 100 * n) for n, t in enumerate(extra["group"]))
        shapes.append('<p:grpSp><p:nvGrpSpPr><p:cNvPr id="9" name="g"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr>'
                      f'<p:grpSpPr/>{inner}</p:grpSp>')
    show = ' show="0"' if extra.get("hidden") else ""
    return f'<p:sld {PNS}{show}><p:cSld><p:spTree>{"".join(shapes)}</p:spTree></p:cSld></p:sld>'


def pptx(slides, title: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        listed = "".join(f'<p:sldId id="{255 + n}" r:id="rId{n}"/>' for n in range(1, len(slides) + 1))
        package.writestr("ppt/presentation.xml", f'<p:presentation {PNS}><p:sldIdLst>{listed}</p:sldIdLst>'
                         '</p:presentation>')
        rels = "".join(f'<Relationship Id="rId{n}" Type="x/slide" Target="slides/slide{n}.xml"/>'
                       for n in range(1, len(slides) + 1))
        package.writestr("ppt/_rels/presentation.xml.rels", f"<Relationships {RELS}>{rels}</Relationships>")
        for n, (name, body, notes, extra) in enumerate(slides, 1):
            package.writestr(f"ppt/slides/slide{n}.xml", _slide(name, body, extra))
            if notes:
                package.writestr(f"ppt/slides/_rels/slide{n}.xml.rels", f'<Relationships {RELS}><Relationship '
                                 'Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
                                 f'notesSlide" Target="../notesSlides/notesSlide{n}.xml"/></Relationships>')
                package.writestr(f"ppt/notesSlides/notesSlide{n}.xml", f'<p:notes {PNS}><p:cSld><p:spTree>'
                                 f'{_shape(notes, "body")}</p:spTree></p:cSld></p:notes>')
        package.writestr("docProps/core.xml", '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/'
                         'package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/">'
                         f'<dc:title>{escape(title)}</dc:title></cp:coreProperties>')
    return out.getvalue()


ODF = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
       'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
       'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
       'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
       'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"')


def odp(slides) -> bytes:
    def frame(paragraphs, kind):
        ps = "".join(f"<text:p>{escape(p)}</text:p>" for p in paragraphs)
        return f'<draw:frame presentation:class="{kind}"><draw:text-box>{ps}</draw:text-box></draw:frame>'
    pages = "".join(f'<draw:page draw:name="p{n}">{frame([name], "title")}{frame(body, "outline")}'
                    + (f"<presentation:notes>{frame(notes, 'notes')}</presentation:notes>" if notes else "")
                    + "</draw:page>" for n, (name, body, notes, _) in enumerate(slides, 1))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("mimetype", "application/vnd.oasis.opendocument.presentation")
        package.writestr("content.xml", f"<office:document-content {ODF}><office:body><office:presentation>{pages}"
                         "</office:presentation></office:body></office:document-content>")
    return out.getvalue()


def write(root: Path) -> int:
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    for rel, data in (("talks/ir lecture 5.pptx", pptx(LECTURE, "Lecture 5: Evaluating search engines")),
                      ("work/q3 roadmap.pptx", pptx(ROADMAP, "Q3 product roadmap")),
                      ("teaching/field trip.odp", odp(TRIP))):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return len(NOTES) + 3


def answers(hit, wanted: str) -> bool:
    path, _, heading = wanted.partition("#")
    return hit.path == path and (not heading or f": {heading}" in (hit.heading_path or ""))


def main() -> int:
    scratch = Path(tempfile.mkdtemp(prefix="sift-decks-"))
    os.environ["SIFT_HOME"] = str(scratch / "home")
    os.environ.setdefault("SIFT_MODEL", "minilm")
    root = scratch / "decks"
    print(f"{write(root)} files written to {root}", flush=True)
    report, engine = index_in_process(root, "decks")
    published = report.get("published") or {}
    print({"files": report["files"], "passages": report["chunks"], "unread": published.get("unread"),
           "failures": published.get("failures")}, flush=True)
    ask_questions(engine, QUESTIONS, answers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
