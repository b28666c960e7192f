"""Slide decks (.pptx: PowerPoint, Google Slides' and Keynote's export; .odp: LibreOffice Impress) read as a Word
document is (ingest.word): a slide a heading, its text a line a paragraph, its speaker notes under it.

Both are zips of XML, read with the standard library (zipfile and ElementTree): python-pptx would read the same
shapes as objects, but is one more package to install for text that is a few XML elements deep, and .odp needs its
own reader anyway. What is read, in the deck's order (a .pptx's ppt/presentation.xml slide list, not its file names;
an .odp's draw:page elements):

- the title: the document's own (docProps/core.xml's, meta.xml's dc:title) unless a program wrote it ('PowerPoint
  Presentation', 'Untitled presentation', a file name), else the first slide's title when it is a title slide (a
  centred title or a subtitle, or a title alone), else the file's name: a deck of topics headed each of its 30
  slides 'Topic 1 > Slide 30: Topic 30', as if the first slide's subject held the others;
- each slide a heading of level 1, 'Slide 3: Precision at k': its number, as PowerPoint shows it and as a person
  names a slide ('what was on slide 3'), and its title placeholder's text, which is no line of its own (a slide
  without a title is 'Slide 3');
- its text in reading order: the title, the body placeholders (the subtitle, the bullets) in the slide's order, then
  the other shapes (text boxes, grouped shapes, tables, pictures, charts) a column at a time (in_columns), a line a
  paragraph; the date, footer and slide-number placeholders left out;
- tables as Markdown tables (WordText.add_table, as a Word document's); a chart's title, axes and data (its cached
  numbers) as a table of categories by series; SmartArt's text as it nests; a picture's alt text, 'Picture: …';
- the speaker notes, after the slide's text, their first line 'Speaker notes: …'; then its comments, 'Comment (Ana):
  …';
- hidden slides are read too, 'Slide 4 (hidden): …': a lecture's backup slides hold what their author wrote, and a
  search for it should find it (the heading says it is not shown).
A 2016 chart kind's (cx:chart: waterfall, treemap, sunburst, histogram, funnel) title and data are read as an
older chart's. Left out: the masters' and layouts' placeholder prompts. A .pptm,
.ppsm, .potx, .potm are a .pptx's XML; a .fodp an .odp's in one XML file (ingest.odt.flat_document).

A deck has no lines: its "lines" are those of ``WordText.lines`` (read_file shows them, and reads a slide by its
heading: read_file(heading='Slide 3')). A password-protected deck, a broken zip or XML and a zip bomb are skipped
with the reason (ingest.zipped); a .pptx's slide whose XML is broken, or listed but missing from the zip, is a slide
of one line, '[not readable: ppt/slides/slide7.xml: its XML is damaged …]', others read (its meta's cut_short names
them; no slide readable, the deck is skipped with the reason); a broken notes or relationships part loses that part
alone, said on a line of the slide's. Each slide is read into its lines as it is parsed, its XML let go (an .odp's
content.xml read as it unzips, a page at a time; one whose XML breaks off keeps the pages before): a deck's memory is
about one slide's parts and the text. A deck beside the PDF of its stem (its
export or handout) stands for it: the PDF is its attachment, not read twice (ingest.links.converted_pdfs).
"""
from __future__ import annotations

import io
import posixpath
import re
import xml.etree.ElementTree as ET
import zipfile
import zlib

from ingest.document import Document, Skip, title_from_name
from ingest.passage_dates import property_date
from ingest.recorded_author import recorded_author
from ingest.unreadable import not_readable, what_is_wrong
from ingest.word_math import OMATH, linear
from ingest.zipped import OPENED_BYTES, opened, opened_odf

P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
PACKAGE_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
DC = "{http://purl.org/dc/elements/1.1/}"
DCTERMS = "{http://purl.org/dc/terms/}"
C = "{http://schemas.openxmlformats.org/drawingml/2006/chart}"
CX = "{http://schemas.microsoft.com/office/drawing/2014/chartex}"  # 2016's chart kinds: waterfall, treemap …
P14 = "{http://schemas.microsoft.com/office/powerpoint/2010/main}"  # a deck's sections (p14:sectionLst)
# a section's name PowerPoint gives: the one before the first its author added, a new one's
GENERIC_SECTION = re.compile(r"(default section|untitled section)?", re.IGNORECASE)
DGM = "{http://schemas.openxmlformats.org/drawingml/2006/diagram}"
TITLES = {"title", "ctrTitle"}
UNREAD_PLACEHOLDERS = {"dt", "ftr", "sldNum", "hdr", "sldImg"}  # a date, a footer, a number: on every slide
SPACES = re.compile(r"\s+")
NOTES = "Speaker notes: "
UNREADABLE = "[not readable: "  # a slide's one line when its XML is broken or its part missing
# what a slide's parts may raise when broken (a zip bomb and an encrypted part Skip the whole deck)
SLIDE_ERRORS = (ET.ParseError, zipfile.BadZipFile, EOFError, zlib.error, ValueError, KeyError)
GENERATED = re.compile(r"\s*Description automatically generated(?: with (?:low|medium|high) confidence)?\.?\s*$",
                       re.IGNORECASE)
MAX_SERIES = 50  # of a chart's series read, columns of its table
MAX_CATEGORIES = 500  # of a chart's categories (its table's rows)
MAX_POINTS = 10_000  # of a SmartArt's points walked
MAX_CUTS = 40  # of columns and rows cut inside each other: past it, a slide's shapes by their top and left
MAX_ARRANGED = 500  # shapes of a slide (or a group) put in columns: more are read by their top and left
# a title the program wrote, not the author: PowerPoint's template's, Google Slides' new deck's, a file name
GENERIC_TITLE = re.compile(r"(powerpoint presentation|presentation\d*|untitled presentation|untitled\b.*|"
                           r".*\.(ppt[xm]?|pps[xm]|pot[xm]|f?odp|key))", re.IGNORECASE)

# OpenDocument (.odp)
OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
PRESENTATION = "{urn:oasis:names:tc:opendocument:xmlns:presentation:1.0}"
STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
SVG = "{urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0}"
TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
CHART = "{urn:oasis:names:tc:opendocument:xmlns:chart:1.0}"
XLINK = "{http://www.w3.org/1999/xlink}"
UNREAD_CLASSES = {"date-time", "footer", "header", "page-number", "page"}  # an .odp's date, footer … placeholders
# a page's children that are no shape on it: its notes and comments (read after its text), its animations and forms
ANNOTATIONS = {OFFICE + "annotation", "{http://openoffice.org/2009/office}annotation"}
UNREAD_ODP = {PRESENTATION + "notes", "{urn:oasis:names:tc:opendocument:xmlns:animation:1.0}par",
              OFFICE + "forms"} | ANNOTATIONS
LENGTH = re.compile(r"(-?[0-9.]+)\s*(cm|mm|in|pt|pc|px)?")
UNITS = {"cm": 1.0, "mm": 0.1, "in": 2.54, "pt": 2.54 / 72, "pc": 2.54 / 6, "px": 2.54 / 96, None: 1.0}


def parse_slides(path: str, data: bytes) -> Document:
    from ingest.word import _sections
    read, parts_of, cut_short = _deck(data, path)
    sections = _sections(read)
    for section in sections:  # the deck's title above each slide, as a workbook's above each sheet, and the
        # PowerPoint section the slide is in ('Lecture 5 > Results > Slide 23: …')
        part = parts_of.get(section.heading_path[0], "") if section.heading_path else ""
        section.heading_path = [read.title] + ([part] if part else []) + section.heading_path
    meta = {"created": read.created} if read.created else {}
    if read.author:  # the deck's author (core.xml's dc:creator, meta.xml's): search's author filter reads it
        meta["author"] = read.author
    if cut_short:  # a slide whose XML is broken or whose part is missing: the others read, this said
        meta["cut_short"] = cut_short
    return Document(kind="note", title=read.title, sections=sections, meta=meta)


def slides_text(data: bytes, path: str = ""):
    """A .pptx or .odp read, as ingest.word.WordText. Raises Skip when it is no readable deck."""
    return _deck(data, path)[0]


def _deck(data: bytes, path: str):
    """(the deck read, as ingest.word.WordText; the name of the PowerPoint section each slide is in by its
    heading, the slides of no section (or PowerPoint's 'Default Section') left out)."""
    from ingest.word import WordText
    out = WordText()
    odp = path.lower().endswith((".odp", ".fodp"))
    title, out.created, out.author, slides = _odp(data) if odp else _pptx(data)
    opening = ""  # the first slide's title, when it is a title slide: the deck's title, if it has none of its own
    parts_of, unreadable, partly = {}, [], []
    for number, (name, hidden, read_slide, titles_deck, part, problem, lost) in enumerate(slides, 1):
        heading = f"Slide {number}" + (" (hidden)" if hidden else "") + (f": {name}" if name else "")
        if part:
            parts_of[heading] = part
        if problem:
            unreadable.append((number, problem))
        partly.extend((number, why) for why in lost)
        out.headings.append((len(out.lines), 1, heading))
        out.lines.append(heading)
        try:
            read_slide(out)
        except RecursionError:
            raise Skip("not a readable slide deck: nested too deeply") from None
        if number == 1 and (titles_deck or all(line.startswith(NOTES) for line in out.lines[1:2])):
            opening = name  # a title slide, or a slide of its title alone ('Kick-off'): no slide of topics
    stem = path.rsplit("/", 1)[-1]
    stem = stem.rsplit(".", 1)[0] if "." in stem[1:] else stem
    title = "" if GENERIC_TITLE.fullmatch(title) else title
    out.title = title or opening or title_from_name(stem)
    return out, parts_of, _cut_short(unreadable, len(slides), partly)


def _cut_short(unreadable: list[tuple[int, str]], count: int, partly: list[tuple[int, str]] = ()) -> str:
    """What the deck's meta says of its slides that could not be read ('' when all were): 'slide 7 of 30 not
    readable (ppt/slides/slide7.xml: its XML is damaged …); the others read', and of the parts of a slide read without
    them (``partly``: its notes, its relationships): 'a part of slide 3 not readable (ppt/notesSlides/…), the
    slide's text read'."""
    said = []
    if unreadable:
        numbers = ", ".join(str(number) for number, _ in unreadable[:20]) + (" …" if len(unreadable) > 20 else "")
        said.append(f"slide{'s' if len(unreadable) > 1 else ''} {numbers} of {count} not readable ("
                     f"{unreadable[0][1]}{' …' if len(unreadable) > 1 else ''}); the others read")
    if partly:
        numbers = sorted({number for number, _ in partly})
        listed = ", ".join(map(str, numbers[:20])) + (" …" if len(numbers) > 20 else "")
        said.append(f"a part of slide{'s' if len(numbers) > 1 else ''} {listed} of {count} not readable ("
                    f"{partly[0][1]}{' …' if len(partly) > 1 else ''}); the slide's own text read")
    return "; ".join(said)


def _clean(text: str) -> str:
    return SPACES.sub(" ", text).strip()


# --- PowerPoint (.pptx) ---------------------------------------------------------------------------------------

def _pptx(data: bytes):
    """(the deck's own title, its created date (core.xml's dcterms:created, as front matter writes a date, or ''),
    its author (core.xml's dc:creator, or ''), [(slide title, hidden, reader of the slide's lines into a WordText)])."""
    with opened(data, "PowerPoint deck", ".pptx") as parts:
        presentation = parts.xml("ppt/presentation.xml")
        if presentation is None:
            raise Skip("not a readable PowerPoint deck: no ppt/presentation.xml in it")
        if presentation.tag != P + "presentation":  # Strict Open XML ('purl.oclc.org/ooxml/…'): none of its names
            raise Skip("not a readable PowerPoint deck: saved as Strict Open XML (Sift reads PowerPoint's usual "
                       ".pptx: save it as 'PowerPoint Presentation')")
        core = parts.xml("docProps/core.xml")
        found = core.find(DC + "title") if core is not None else None
        title = _clean(found.text or "")[:500] if found is not None else ""
        found = core.find(DCTERMS + "created") if core is not None else None
        created = property_date(found.text) if found is not None else ""
        found = core.find(DC + "creator") if core is not None else None  # the author: search's author filter
        author = recorded_author(found.text if found is not None else None)
        targets = _targets(parts, "ppt/presentation.xml")
        authors = _authors(parts)
        part_of = {listed.get("id"): _clean(section.get("name") or "")[:200]
                   for section in presentation.iter(P14 + "section") for listed in section.iter(P14 + "sldId")
                   if not GENERIC_SECTION.fullmatch(_clean(section.get("name") or ""))}
        slides, seen = [], set()
        for listed in presentation.iter(P + "sldId"):
            part = targets.get(listed.get(R + "id") or "")
            if part in seen or (part or "").startswith("../"):  # a slide listed twice (a hostile loop), or a name
                continue  # outside the zip
            section = part_of.get(listed.get("id"), "")
            if part is None or part not in parts.names:  # listed, but lost from the zip (a repair, a bad export)
                slides.append(_unreadable(f"{part} is not in the deck" if part else f"its id {listed.get(R + 'id')!r} "
                                          "names no part in ppt/_rels/presentation.xml.rels", section))
                continue
            seen.add(part)
            try:  # read now, its XML dropped: 90,000 slides' trees held till the last peaked at 1.1 GB
                slide, notes, related, comments, lost = _pptx_parts(parts, part)
                slides.append((*_read_now(*_pptx_slide(slide, notes, related, comments, lost, authors)), section, "",
                               lost))
                del slide, notes, related, comments
            except SLIDE_ERRORS as error:  # this slide alone: the others are read (a zip bomb still Skips)
                slides.append(_unreadable(what_is_wrong(error)[:300], section, part))
            except RecursionError:  # shapes grouped 100,000 deep: only a hostile slide comes near
                slides.append(_unreadable("nested too deeply", section, part))
        if slides and all(slide[5] for slide in slides):  # no slide read: the deck is skipped with the first's
            raise Skip(f"not a readable PowerPoint deck: {slides[0][5].split(': ', 1)[-1]}")  # reason, no part name
    return title, created, author, slides


def _pptx_parts(parts, part: str):
    """A slide's parts parsed: the slide's, its notes', its charts' and SmartArt's by id, its comments', and what
    of them could not be read ('ppt/notesSlides/notesSlide3.xml: its XML is damaged …'): a broken relationships or
    notes part loses those alone, the slide's own text is read (it made the whole slide '[not readable: …]')."""
    slide = parts.xml(part)
    lost = []
    try:
        relations = _relations(parts, part)
    except (*SLIDE_ERRORS, RecursionError) as error:
        folder, name = posixpath.split(part)
        lost.append(_why(f"{folder}/_rels/{name}.rels", error))
        relations = []
    notes_part = next((path for _, type_, path in relations if type_.endswith("/notesSlide")), None)
    notes = None
    if notes_part in parts.names:
        try:
            notes = parts.xml(notes_part)
        except (*SLIDE_ERRORS, RecursionError) as error:
            lost.append(_why(notes_part, error))
    related, comments = _related(parts, relations)
    return slide, notes, related, comments, lost


def _why(part: str, error: BaseException) -> str:
    """'ppt/notesSlides/notesSlide3.xml: its XML is damaged (…)': a part not read and why."""
    return f"{part}: {what_is_wrong(error)}"[:300]


def _read_now(name, hidden, read, centred):
    """A slide read into lines of its own now, its parsed XML let go; its reader puts those lines in the deck's."""
    from ingest.word import WordText
    mine = WordText()
    read(mine)

    def replay(out) -> None:
        first = len(out.lines)
        out.lines.extend(mine.lines)
        out.tables.extend((start + first, end + first) for start, end in mine.tables)
    return name, hidden, replay, centred


def _unreadable(why: str, section: str, part: str = ""):
    """A slide that could not be read, as a slide of one line saying why ('[not readable: ppt/slides/slide7.xml:
    its XML is damaged (…)]'): its number kept, the others read."""
    why = f"{part}: {why}" if part else why
    return "", False, lambda out: out.lines.append(f"{UNREADABLE}{why}]"), False, section, why, []


def _targets(parts, part: str, typed: bool = False) -> dict[str, str]:
    """A part's relationships: id → the part it names (``typed``: type → part), its path inside the zip."""
    return {(type_ if typed else id_): path for id_, type_, path in _relations(parts, part)}


def _relations(parts, part: str) -> list[tuple[str, str, str]]:
    """A part's relationships inside the zip: (id, type, the part's path)."""
    folder, name = posixpath.split(part)
    rels = parts.xml(f"{folder}/_rels/{name}.rels")
    found = []
    for rel in rels.iter(PACKAGE_REL + "Relationship") if rels is not None else ():
        if rel.get("TargetMode") == "External":
            continue
        target = rel.get("Target") or ""
        path = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        found.append((rel.get("Id") or "", rel.get("Type") or "", path))
    return found


def _related(parts, relations: list[tuple[str, str, str]]) -> tuple[dict, list]:
    """The parts a slide's charts and SmartArt name (its ``relations``), parsed, by relationship id; its comments'
    parts, parsed."""
    by_id, comments = {}, []
    for id_, type_, path in relations:
        if path not in parts.names:
            continue
        kind = type_.rsplit("/", 1)[-1]
        if kind in ("chart", "chartEx", "diagramData"):
            by_id[id_] = _optional(parts, path)
        elif kind == "comments":  # the old comments' (ppt/comments/comment1.xml) or 2018's modern ones'
            comments.append(_optional(parts, path))
    return by_id, comments


def _optional(parts, path: str):
    """A part beside a slide's text (a chart, SmartArt, comments) parsed, or None when it is damaged: the deck is
    read without it, not skipped (a zip bomb still is: Skip)."""
    try:
        return parts.xml(path)
    except (ET.ParseError, zipfile.BadZipFile, EOFError, RecursionError):
        return None


def _authors(parts) -> dict[str, str]:
    """Comment authors' names by id: the old list's (ppt/commentAuthors.xml) and the modern one's (ppt/authors.xml)."""
    names = {}
    for part in ("ppt/commentAuthors.xml", "ppt/authors.xml"):
        found = _optional(parts, part)
        for author in found.iter() if found is not None else ():
            if author.tag.endswith(("}cmAuthor", "}author")) and author.get("name"):
                names[author.get("id") or ""] = _clean(author.get("name") or "")[:100]
    return names


def _pptx_slide(slide, notes, related: dict | None = None, comment_parts: list | None = None,
                lost: list[str] | None = None, authors: dict[str, str] | None = None):
    comments = _comments(comment_parts or [], authors or {})
    tree = slide.find(f"{P}cSld/{P}spTree")
    shapes = list(_shapes(tree)) if tree is not None else []
    titles = [shape for shape in shapes if _placeholder(shape) in TITLES]
    name = " ".join(t for t in (_clean(" ".join(_paragraphs(shape))) for shape in titles) if t)[:500]

    def read(out) -> None:
        for shape in _in_reading_order([s for s in shapes if s not in titles]):
            _shape_lines(shape, out, related or {})
        _notes(out, [line for shape in (_shapes(notes.find(f"{P}cSld/{P}spTree")) if notes is not None else ())
                     if _placeholder(shape) == "body" for line in _paragraphs(shape)])
        out.lines.extend(comments or ())
        out.lines.extend(f"{UNREADABLE}{why}]" for why in lost or ())  # a part of it, its notes or rels
    centred = any(_placeholder(shape) in ("ctrTitle", "subTitle") for shape in shapes)  # a title slide's layout
    return name, slide.get("show") in ("0", "false"), read, centred


def _shapes(tree):
    """A shape tree's shapes: text shapes, groups, tables' frames; what mc:AlternateContent offers, its first
    choice's."""
    for child in tree if tree is not None else ():
        if child.tag in (P + "sp", P + "grpSp", P + "graphicFrame", P + "pic"):
            yield child
        elif child.tag == MC + "AlternateContent":
            choice = child.find(MC + "Choice")
            yield from _shapes(choice if choice is not None else child.find(MC + "Fallback"))


def _placeholder(shape) -> str | None:
    """A shape's placeholder type ('title', 'body' for one of no type, which is a body's), or None."""
    found = shape.find(f"{P}nvSpPr/{P}nvPr/{P}ph")
    if found is None:
        found = shape.find(f"{P}nvGraphicFramePr/{P}nvPr/{P}ph")
    return None if found is None else found.get("type") or "body"


def _in_reading_order(shapes: list) -> list:
    """The body placeholders (subtitle, bullets) in the slide's order, then the rest top to bottom, left to right."""
    placeholders = [s for s in shapes if _placeholder(s) is not None]
    others = in_columns([s for s in shapes if _placeholder(s) is None], _box)
    return [s for s in placeholders if _placeholder(s) not in UNREAD_PLACEHOLDERS] + others


def in_columns(shapes: list, box) -> list:
    """Shapes in reading order: columns left to right, each read top to bottom, where a gap between them runs the
    height of the slide (or of the part of it cut off already), else rows top to bottom where a gap runs across it,
    else by their top and left. Two columns of a heading box and a text box each were read heading, heading, text,
    text (by their tops alone); and a box a little higher on the right came before the one on the left. ``box``
    gives a shape's (left, top, right, bottom), None for a shape of no position (read after the others)."""
    placed = [(found, shape) for shape in shapes if (found := box(shape)) is not None]
    return [shape for _, shape in _cut(placed, 0)] + [shape for shape in shapes if box(shape) is None]


def _cut(placed: list, depth: int) -> list:
    if len(placed) < 2:
        return placed
    if depth < MAX_CUTS and len(placed) <= MAX_ARRANGED:
        bands = _bands(placed, 0)  # columns: a gap along x
        if len(bands) < 2:  # rows, those next to each other that are columns together as one (headings, their text)
            bands = []
            for band in _bands(placed, 1):
                if bands and len(_bands(bands[-1] + band, 0)) > 1:
                    bands[-1] = bands[-1] + band
                else:
                    bands.append(band)
        if len(bands) > 1:
            return [item for band in bands for item in _cut(band, depth + 1)]
    return sorted(placed, key=lambda item: (item[0][1], item[0][0]))


def _bands(placed: list, axis: int) -> list[list]:
    """``placed`` parted where a gap along ``axis`` (0: x, 1: y) runs between them, in that axis's order."""
    bands: list[list] = []
    end = 0.0
    for item in sorted(placed, key=lambda item: item[0][axis]):
        start = item[0][axis]
        if not bands or (start >= end and start > bands[-1][0][0][axis]):
            bands.append([])
            end = item[0][axis + 2]
        bands[-1].append(item)
        end = max(end, item[0][axis + 2])
    return bands


def _box(shape) -> tuple[float, float, float, float] | None:
    """(left, top, right, bottom) of a shape, a group, a frame or a picture: its offset (a:off) and size (a:ext,
    none taken as 0), or None."""
    for where in (f"{P}spPr/{A}xfrm", f"{P}grpSpPr/{A}xfrm", f"{P}xfrm"):
        found = shape.find(where)
        offset = found.find(A + "off") if found is not None else None
        if offset is not None:
            size = found.find(A + "ext")
            try:
                x, y = float(offset.get("x") or 0), float(offset.get("y") or 0)
                width = float(size.get("cx") or 0) if size is not None else 0.0
                height = float(size.get("cy") or 0) if size is not None else 0.0
            except ValueError:
                return None
            return x, y, x + max(width, 0), y + max(height, 0)
    return None


def _shape_lines(shape, out, related: dict) -> None:
    if shape.tag == P + "grpSp":
        for inner in in_columns(list(_shapes(shape)), _box):
            _shape_lines(inner, out, related)
    elif shape.tag == P + "pic":  # a picture: its alt text, what its author wrote of it
        out.lines.extend(_alt_text(shape.find(f"{P}nvPicPr/{P}cNvPr")))
    elif shape.tag == P + "graphicFrame":
        table = next(shape.iter(A + "tbl"), None)
        if table is None:  # a chart or SmartArt (the parts the slide's relationships name), else not read
            for element in shape.iter():
                if element.tag == C + "chart":
                    _chart_lines(related.get(element.get(R + "id") or ""), out)
                elif element.tag == CX + "chart":  # a waterfall, treemap, sunburst, histogram, funnel, box
                    _chartex_lines(related.get(element.get(R + "id") or ""), out)
                elif element.tag == DGM + "relIds":
                    _diagram_lines(related.get(element.get(R + "dm") or ""), out)
            return
        rows = [[_clean(" ".join(_paragraphs(cell))) for cell in row.iter(A + "tc")] for row in table.iter(A + "tr")]
        rows = [row for row in rows if any(row)]
        if rows:
            out.add_table(rows)
    else:
        out.lines.extend(_paragraphs(shape))
        out.lines.extend(_alt_text(shape.find(f"{P}nvSpPr/{P}cNvPr")) if shape.find(P + "txBody") is None else ())


def _alt_text(properties) -> list[str]:
    """'Picture: …', a picture's alt text (cNvPr's descr, else its title), without the words PowerPoint adds to
    the description it wrote itself ('Description automatically generated')."""
    if properties is None:
        return []
    text = properties.get("descr") or properties.get("title") or ""
    text = _clean(GENERATED.sub("", text))[:2000]
    return [f"Picture: {text}"] if text else []


def _chart_lines(chart, out) -> None:
    """A chart's title ('Chart: Revenue by quarter'), its axes' titles, and its data as a table: a row for each
    category (Q1, Q2 …), a column for each series, their values as the chart's cache holds them."""
    if chart is None:
        return
    plot = chart.find(f"{C}chart/{C}plotArea")
    title = chart.find(f"{C}chart/{C}title")
    out.lines.append("Chart: " + (_rich(title) or "untitled"))
    axes = [_rich(axis.find(C + "title")) for axis in plot if axis.tag.endswith("Ax")] if plot is not None else []
    if any(axes):
        out.lines.append("Axes: " + ", ".join(axis for axis in axes if axis))
    series = list(plot.iter(C + "ser")) if plot is not None else []
    columns = [(_series_name(ser) or f"Series {n}", _points(_first(ser, "val", "yVal")))
               for n, ser in enumerate(series[:MAX_SERIES], 1)]
    categories = next((found for ser in series if (found := _points(_first(ser, "cat", "xVal")))),
                      [])
    _chart_table(out, columns, categories)



def _chart_table(out, columns: list[tuple[str, list[str]]], categories: list[str]) -> None:
    """A chart's data as a table: a row a category (its number when the chart names none), a column a series."""
    length = min(max([len(categories)] + [len(values) for _, values in columns]), MAX_CATEGORIES)
    if not columns or not length:
        return
    rows = [[""] + [name for name, _ in columns]]
    for at in range(length):
        rows.append([categories[at] if at < len(categories) else str(at + 1)] +
                    [values[at] if at < len(values) else "" for _, values in columns])
    out.add_table(rows)

def _chartex_lines(chart, out) -> None:
    """A 2016 chart kind's (cx:chartSpace: a waterfall, treemap, sunburst, histogram, funnel, box and whisker) title,
    axes' titles and data as an older chart's: a row a category (a treemap's or sunburst's with the levels above it,
    'Fruit > Apple'), a column a series, the values its chartData holds. They were left out."""
    if chart is None or chart.tag != CX + "chartSpace":
        return
    out.lines.append("Chart: " + (_cx_text(chart.find(f"{CX}chart/{CX}title")) or "untitled"))
    axes = [_cx_text(axis.find(CX + "title")) for axis in chart.iter(CX + "axis")]
    if any(axes):
        out.lines.append("Axes: " + ", ".join(axis for axis in axes if axis))
    data = {found.get("id"): found for found in chart.iter(CX + "data")}
    columns, categories = [], []
    for n, ser in enumerate(list(chart.iter(CX + "series"))[:MAX_SERIES], 1):
        found = ser.find(CX + "dataId")
        source = data.get(found.get("val") if found is not None else "0")
        if source is None:
            continue
        dimensions = [dim for dim in source if dim.tag in (CX + "numDim", CX + "strDim")]
        values = next((_cx_levels(dim)[0] for dim in dimensions if dim.tag == CX + "numDim"
                       and _cx_levels(dim)), [])
        categories = categories or next((_cx_path(_cx_levels(dim)) for dim in dimensions
                                         if dim.tag == CX + "strDim"), [])
        name = _clean(ser.findtext(f"{CX}tx/{CX}txData/{CX}v") or "")  # its cell's cached text, or in place
        columns.append((name[:200] or f"Series {n}", values))
    _chart_table(out, columns, categories)


def _cx_text(title) -> str:
    """A 2016 chart's or its axis's title: its rich text's, else the text (or the cell's cached text) it holds."""
    if title is None:
        return ""
    rich = " ".join(t.text or "" for t in title.iter(A + "t"))
    return _clean(rich or " ".join(v.text or "" for v in title.iter(CX + "v")))[:500]


def _cx_levels(dimension) -> list[list[str]]:
    """A 2016 chart's dimension's levels (cx:lvl, the leaves' first), each its points' text by their index."""
    levels = []
    for level in dimension.findall(CX + "lvl"):
        points = {}
        for point in level.findall(CX + "pt"):
            try:
                at = int(point.get("idx") or 0)
            except ValueError:
                continue
            if 0 <= at < MAX_CATEGORIES:
                points.setdefault(at, _clean(point.text or ""))
        levels.append([points.get(at, "") for at in range(max(points) + 1)] if points else [])
    return levels


def _cx_path(levels: list[list[str]]) -> list[str]:
    """A treemap's or sunburst's categories, each with the levels above it ('Fruit > Apple'); a level above the
    leaves whose point is empty is the one before it's, as Excel writes a hierarchy's cells (once a group)."""
    if not levels:
        return []
    above = []
    for level in levels[1:]:
        filled, last = [], ""
        for at in range(len(levels[0])):
            last = (level[at] if at < len(level) else "") or last
            filled.append(last)
        above.append(filled)
    return [" > ".join(text for text in [*(level[at] for level in reversed(above)), leaf] if text)
            for at, leaf in enumerate(levels[0])]


def _series_name(ser) -> str:
    """A series' name: the cell it names' cached text, or the text written in place (c:tx/c:v)."""
    return next(iter(_points(ser.find(C + "tx"))), "") or _clean(ser.findtext(f"{C}tx/{C}v") or "")[:200]


def _first(element, *names: str):
    """The first of a chart's elements so named that ``element`` holds (a bar's c:val, a scatter's c:yVal)."""
    return next((found for name in names if (found := element.find(C + name)) is not None), None)


def _rich(title) -> str:
    """A chart's or an axis's title: its text (c:tx's rich text or the cell it names' cached text)."""
    if title is None:
        return ""
    return _clean(" ".join(" ".join(t.text or "" for t in p.iter(A + "t")) for p in title.iter(A + "p"))
                  or " ".join(_points(title)))[:500]


def _points(element) -> list[str]:
    """The cached values (c:pt's c:v) under a series' name, categories or values, in their index's order."""
    if element is None:
        return []
    points = {}
    for point in element.iter(C + "pt"):
        try:
            at = int(point.get("idx") or 0)
        except ValueError:
            continue
        if 0 <= at < MAX_CATEGORIES:
            points.setdefault(at, _clean(point.findtext(C + "v") or ""))
    return [points.get(at, "") for at in range(max(points) + 1)] if points else []


def _diagram_lines(data, out) -> None:
    """SmartArt's text, its data model's points as the diagram nests them: '- Plan', '  - Budget' …"""
    if data is None:
        return
    points = {point.get("modelId") or "": point for point in data.iter(DGM + "pt")}
    children: dict[str, list[tuple[int, str]]] = {}
    for link in data.iter(DGM + "cxn"):
        if link.get("type", "parOf") == "parOf":
            try:
                order = int(link.get("srcOrd") or 0)
            except ValueError:
                order = 0
            children.setdefault(link.get("srcId") or "", []).append((order, link.get("destId") or ""))
    seen: set[str] = set()

    def walk(id_: str, depth: int) -> None:
        if id_ in seen or len(seen) > MAX_POINTS:
            return
        seen.add(id_)
        point = points.get(id_)
        if point is not None and point.get("type", "node") in ("node", "asst"):
            text = _clean(" ".join(" ".join(t.text or "" for t in p.iter(A + "t"))
                                   for p in point.iter(A + "p")))
            if text:
                out.lines.append("  " * depth + "- " + text)
            depth += 1 if text else 0
        for _, child in sorted(children.get(id_, [])):
            walk(child, depth)
    roots = [id_ for id_, point in points.items() if point.get("type") == "doc"] or list(points)
    for root in roots:
        walk(root, 0)
    for id_ in points:  # a point no link reaches (a damaged model): in its list's order
        walk(id_, 0)


def _comments(parts: list, authors: dict[str, str]) -> list[str]:
    """A slide's comments, each a line 'Comment (Ana): …', replies after the comment they answer."""
    lines = []
    for part in parts:
        for comment in part.iter() if part is not None else ():
            if not isinstance(comment.tag, str) or not comment.tag.endswith(("}cm", "}reply")):
                continue
            body, replies = comment.find(P + "text"), set(_replies(comment))
            text = _clean(body.text or "") if body is not None else _clean(" ".join(
                " ".join(t.text or "" for t in p.iter(A + "t")) for p in comment.iter(A + "p") if p not in replies))
            author = authors.get(comment.get("authorId") or "", "")
            if text:
                lines.append(f"Comment ({author}): {text}" if author else f"Comment: {text}")
    return lines


def _replies(comment) -> list:
    """The paragraphs of a modern comment's replies (read as comments of their own)."""
    return [p for child in comment if child.tag.endswith("}replyLst") for p in child.iter(A + "p")]


def _paragraphs(shape) -> list[str]:
    """A text shape's (or a table cell's) paragraphs' text, empty ones left out."""
    body = shape.find(P + "txBody")
    if body is None:
        body = shape.find(A + "txBody")
    found = []
    for paragraph in body.iter(A + "p") if body is not None else ():
        pieces = []
        for child in paragraph:
            if child.tag in (A + "r", A + "fld"):
                pieces.append(child.findtext(A + "t") or "")
            elif child.tag == A + "br":
                pieces.append(" ")
            elif maths := [linear(math) for math in child.iter(OMATH)]:  # an equation (a14:m): its text
                pieces.append(" ".join(maths))
        text = _clean("".join(pieces))
        if text:
            found.append(text)
    return found


def _notes(out, lines: list[str]) -> None:
    if lines:
        out.lines.append(NOTES + lines[0])
        out.lines.extend(lines[1:])


# --- OpenDocument presentation (.odp) -------------------------------------------------------------------------

def _odp(data: bytes):
    """(the deck's own title, its created date, its author, its slides as _pptx's): content.xml read as it unzips (iterparse), a
    page read into its lines when its end is parsed and let go, as a .pptx's slide is: a deck's memory is about a
    page's XML and the text, not the whole content.xml's tree (3,000 pages held 10 times their XML's size)."""
    from ingest.odt import creation_date, flat_bytes, odf_author
    what = "OpenDocument presentation"
    if (flat := flat_bytes(data, what)) is not None:
        title, meta, slides = _odp_pages(io.BytesIO(flat), None)  # a flat .fodp: its meta and objects in place
        return title, creation_date(meta), odf_author(meta), slides
    with opened_odf(data, what, ".odp") as parts:
        meta = parts.xml("meta.xml")
        with parts.open("content.xml") as stream:
            title, _, slides = _odp_pages(stream, parts)
    found = meta.find(f"{OFFICE}meta/{DC}title") if meta is not None else None
    title = _clean(found.text or "")[:500] if found is not None else title
    return title, creation_date(meta), odf_author(meta), slides


def _odp_pages(stream, parts):
    """(a flat file's title, its office:meta under a root as meta.xml's, its slides) of an .odp's content.xml (or
    a flat .fodp) read page by page; ``parts``, the zip's Parts its embedded objects (charts) are read from, a page's
    when it is read (None: a flat file's, in place). XML that breaks off after a page keeps the pages before it, a
    last slide saying so; before any, the deck is skipped with the error."""
    from ingest.odt import bounded_iterparse
    hidden_styles, slides, meta = set(), [], None
    style, office_meta, page = STYLE + "style", OFFICE + "meta", DRAW + "page"  # (made once: every element's end)
    try:
        for _, element in bounded_iterparse(stream, "OpenDocument presentation", OPENED_BYTES):
            tag = element.tag
            if tag == style:  # a page's style: hidden, or not
                if any(props.get(PRESENTATION + "visibility") == "hidden"
                       for props in element.iter(STYLE + "drawing-page-properties")):
                    hidden_styles.add(element.get(STYLE + "name"))
            elif tag == office_meta and meta is None:  # a flat file's, as meta.xml holds it
                meta = ET.Element(OFFICE + "document-meta")
                meta.append(element)
            elif tag == page:
                hidden = element.get(DRAW + "style-name") in hidden_styles or \
                    element.get(PRESENTATION + "visibility") == "hidden"
                objects = _odp_objects(parts, element) if parts is not None else {}
                try:
                    slides.append((*_read_now(*_odp_slide(element, hidden, objects)), "", "", []))
                except RecursionError:  # shapes grouped 100,000 deep: this page alone, as a .pptx's slide
                    slides.append(_unreadable("nested too deeply", "", f"content.xml's page {len(slides) + 1}"))
                element.clear()  # read: its shapes let go (the empty element stays, a few bytes)
    except ET.ParseError as error:
        if not slides:
            raise Skip(not_readable(error, "OpenDocument presentation", ".odp")[:500]) from None
        slides.append(_unreadable(f"content.xml: {what_is_wrong(error)}"[:300] + " (the XML breaks off: "
                                  "the slides after it not read)", ""))
    if slides and all(slide[5] for slide in slides):  # no page readable: skipped with the reason, as a .pptx
        raise Skip(f"not a readable OpenDocument presentation: {slides[0][5].split(': ', 1)[-1]}")
    found = meta.find(f"{OFFICE}meta/{DC}title") if meta is not None else None
    return (_clean(found.text or "")[:500] if found is not None else ""), meta, slides


def _odp_objects(parts, page) -> dict:
    """An embedded object's (a chart's) parsed content.xml by its name, 'Object 1', of the objects a page holds."""
    objects = {}
    for embedded in page.iter(DRAW + "object"):
        name = posixpath.normpath((embedded.get(XLINK + "href") or "").removeprefix("./"))
        if name and name not in objects and f"{name}/content.xml" in parts.names:
            objects[name] = _optional(parts, f"{name}/content.xml")
    return objects


def _odp_slide(page, hidden: bool, objects: dict | None = None):
    from ingest.odt import _Reader
    shapes = [child for child in page if isinstance(child.tag, str) and child.tag not in UNREAD_ODP]
    titles = [s for s in shapes if s.get(PRESENTATION + "class") == "title"]
    name = " ".join(t for t in (_clean(" ".join(_texts(s))) for s in titles) if t)[:500]

    def read(out) -> None:
        reader = _Reader(out, set())
        rest = [s for s in shapes if s not in titles and s.get(PRESENTATION + "class") not in UNREAD_CLASSES]
        placeholders = [s for s in rest if s.get(PRESENTATION + "class")]
        for shape in placeholders + in_columns([s for s in rest if s not in placeholders], _odp_box):
            _odp_lines(shape, reader, objects or {})
        notes = page.find(PRESENTATION + "notes")
        first = len(out.lines)
        for frame in notes if notes is not None else ():
            if frame.get(PRESENTATION + "class") == "notes":
                _odp_lines(frame, reader, {})
        if len(out.lines) > first:
            out.lines[first] = NOTES + out.lines[first]
        for comment in (c for c in page if c.tag in ANNOTATIONS):  # after the notes, as a .pptx's
            author = _clean(comment.findtext(DC + "creator") or "")[:100]
            text = _clean(" ".join(_texts(comment)))
            if text:
                out.lines.append(f"Comment ({author}): {text}" if author else f"Comment: {text}")
    return name, hidden, read, any(s.get(PRESENTATION + "class") == "subtitle" for s in shapes)  # a title slide


def _odp_lines(shape, reader, objects: dict) -> None:
    """A frame's, a shape's or a group's text (its members by position), as an .odt's: paragraphs, lists, tables;
    a chart's as a .pptx's."""
    embedded = shape.find(DRAW + "object")
    if embedded is not None:
        name = posixpath.normpath((embedded.get(XLINK + "href") or "").removeprefix("./"))
        document = objects.get(name) if name in objects else embedded.find(OFFICE + "document")
        chart = document.find(f"{OFFICE}body/{OFFICE}chart/{CHART}chart") if document is not None else None
        if chart is not None:
            _odp_chart(chart, reader.out)
        return  # a chart read, or another object (a formula, a spreadsheet's cells): not read
    if shape.tag == DRAW + "g":
        for inner in in_columns([c for c in shape if isinstance(c.tag, str)], _odp_box):
            _odp_lines(inner, reader, objects)
    elif shape.tag not in (SVG + "title", SVG + "desc"):
        reader.blocks(shape, 0)
        if shape.find(DRAW + "image") is not None:  # a picture: its alt text (Impress's Description, else Title)
            text = _clean(shape.findtext(SVG + "desc") or shape.findtext(SVG + "title") or "")[:2000]
            if text:
                reader.out.lines.append(f"Picture: {text}")


def _odp_chart(chart, out) -> None:
    """An Impress chart (an embedded object's chart:chart) as a .pptx's: its title, its axes' titles and its data,
    the table it holds (a row a category, a column a series, its header row the series' names)."""
    from ingest.ods import _value
    title = _clean(" ".join(_texts(chart.find(CHART + "title")) if chart.find(CHART + "title") is not None else []))
    out.lines.append("Chart: " + (title[:500] or "untitled"))
    axes = [_clean(" ".join(_texts(found))) for found in chart.iter(CHART + "axis")
            for found in found.findall(CHART + "title")]
    if any(axes):
        out.lines.append("Axes: " + ", ".join(axis for axis in axes if axis))
    table = chart.find(TABLE + "table")
    rows = []
    for row in table.iter(TABLE + "table-row") if table is not None else ():
        rows.append([_value(cell) for cell in row if cell.tag == TABLE + "table-cell"][:MAX_SERIES + 1])
        if len(rows) > MAX_CATEGORIES:
            break
    if len(rows) > 1 and any(any(row[1:]) for row in rows[1:]):
        out.add_table(rows)


def _texts(shape) -> list[str]:
    return [_clean("".join(p.itertext())) for p in shape.iter(TEXT + "p")]


def _odp_box(shape) -> tuple[float, float, float, float] | None:
    y, x = _length(shape.get(SVG + "y")), _length(shape.get(SVG + "x"))
    if y is None or x is None:
        return None
    width, height = _length(shape.get(SVG + "width")) or 0.0, _length(shape.get(SVG + "height")) or 0.0
    return x, y, x + max(width, 0), y + max(height, 0)


def _length(value: str | None) -> float | None:
    found = LENGTH.match(value or "")
    if not found:
        return None
    try:
        return float(found.group(1)) * UNITS[found.group(2)]
    except ValueError:
        return None
