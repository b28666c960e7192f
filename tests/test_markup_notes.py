"""org-mode, reStructuredText and AsciiDoc read as notes by their headings (ingest.org, ingest.rst,
ingest.asciidoc): before, each was plain text, one run of lines with no heading, title, tag or link."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest.kinds import kind_of
from ingest.links import converted_pdfs
from ingest.parse import parse_file
from tests.conftest import ingest, write_tree

AGENDA = """#+TITLE: Home and [[https://example.org][work]] agenda
#+FILETAGS: :agenda:
#+TODO: TODO WAIT(w) | DONE
#+INCLUDE: "people.org" :minlevel 2
# a comment line: never searched
* Projects :work:
** TODO [#A] Ship the 2.0 release [1/3] :urgent:
   DEADLINE: <2024-03-14 Thu> SCHEDULED: <2024-03-10 Sun>
   :PROPERTIES:
   :ID:       5b2f0d3e-release
   :EFFORT:   2h
   :CREATED:  [2024-01-05 Fri 09:00]
   :END:
   :LOGBOOK:
   CLOCK: [2024-03-01 Fri 10:00]--[2024-03-01 Fri 11:00] =>  1:00
   :END:
   Follow [[file:lists/checklist.org::*Before][the checklist]] and tell [[id:77aa-people][Maria]].
   Release party <2024-03-20 Wed 18:00> at the office.
** WAIT Call the plumber about the leaking boiler
#+BEGIN_SRC shell
* not a headline in a block
make release
#+END_SRC
* DONE Renew the passport
"""

CHECKLIST = """#+TITLE: Release checklist
* Before
  :PROPERTIES:
  :CUSTOM_ID: before
  :END:
  Tag the commit and write the changelog.
* After
  Announce on the mailing list; see [[file:../agenda.org][the agenda]].
"""

PEOPLE = """* Maria
  :PROPERTIES:
  :ID: 77aa-people
  :END:
  Maria runs the release announcements.
"""

GUIDE = """.. _top:

==========
User Guide
==========

Welcome to Foo. Read :doc:`install` first, then :ref:`the configuration <config>`.

.. toctree::
   :maxdepth: 2

   install
   Tutorial <tutorial/index>

.. a comment: never searched
   nor this line

Configuration
=============

.. _config:

Set ``cache_dir`` in ``foo.toml``::

    [foo]
    cache_dir = "/var/cache/foo"
    Not a title
    ===========

.. note:: The cache is shared between workers.

.. code-block:: python
   :caption: settings.py
   :linenos:

   import foo

Logging
-------

.. py:function:: configure_logging(level)

   Send the log to syslog.
"""

INSTALL = """Installing
==========

Run ``pip install foo``. Back to the :doc:`guide <index>`.
"""

BOOK = """= The Foo Book
Jane Doe <jane@example.org>
:toc: left
:keywords: foo, handbook

== Getting started

Install Foo as xref:setup.adoc#linux[the Linux setup] says, or read <<quickstart>>.

[source,python]
----
== not a heading in a listing
import foo
----

// a comment: never searched
.A worked example
====
An example of the cache warming up.
====

include::chapters/appendix.adoc[]

=== On Windows

Use the installer; see <<setup.adoc#,the setup>>.
"""

SETUP = """= Setup

== Linux

Use your distribution's package.
"""


def test_the_three_kinds_are_notes_and_no_conversion_of_a_pdf_beside_them():
    assert [kind_of(name) for name in ("a.org", "b.rst", "c.adoc", "d.asciidoc", "e.txt")] == \
        ["note", "note", "note", "note", "text"]
    # a manual.rst or book.adoc builds the PDF beside it: the PDF is its attachment, as beside a .tex
    assert converted_pdfs({"manual.pdf", "manual.rst", "book.pdf", "book.adoc", "x.org", "x.pdf"}) == \
        {"manual.rst": "manual.pdf", "book.adoc": "book.pdf", "x.org": "x.pdf"}


def test_an_org_file_by_its_headlines_keywords_and_tags_apart_drawers_out():
    doc = parse_file("agenda.org", AGENDA.encode())
    assert doc.kind == "note" and doc.title == "Home and work agenda", doc.title
    parts = {" > ".join(s.heading_path): s for s in doc.sections}
    # '* Projects' with nothing under it but its child opens that one's passage
    assert list(parts) == ["Projects > Ship the 2.0 release", "Projects > Call the plumber about the leaking boiler",
                           "Renew the passport"], list(parts)
    release = parts["Projects > Ship the 2.0 release"]
    lines = AGENDA.split("\n")
    assert lines[release.start_line - 1] == "* Projects :work:", release
    assert "TODO [#A] Ship the 2.0 release" in release.text  # the keyword findable, not the name
    assert "DEADLINE: 2024-03-14 Thu SCHEDULED: 2024-03-10 Sun" in release.text, release.text
    assert "CREATED: 2024-01-05 Fri 09:00" in release.text and "party 2024-03-20 Wed 18:00 at" in release.text
    assert "EFFORT: 2h" in release.text and "Follow the checklist and tell Maria." in release.text, release.text
    whole = "\n".join(s.text for s in doc.sections)
    for unseen in ("5b2f0d3e", "PROPERTIES", "CLOCK", "LOGBOOK", "comment line", "FILETAGS", "BEGIN_SRC"):
        assert unseen not in whole, unseen
    plumber = parts["Projects > Call the plumber about the leaking boiler"]
    assert "* not a headline in a block\nmake release" in plumber.text, plumber.text
    # a headline's tags are on its line, not the file's: every passage of the agenda came first for '#urgent'
    assert doc.meta["tags"] == ["agenda"] and ":urgent:" in release.text, doc.meta
    assert doc.meta["ids"] == ["5b2f0d3e-release"], doc.meta
    assert doc.meta["links"] == ["id:77aa-people", "lists/checklist.org", "people.org"], doc.meta


def test_an_rst_file_by_its_titles_directives_and_roles_read():
    doc = parse_file("docs/index.rst", GUIDE.encode())
    assert doc.title == "User Guide", doc.title
    parts = {" > ".join(s.heading_path): s for s in doc.sections}
    assert list(parts) == ["User Guide", "User Guide > Configuration", "User Guide > Configuration > Logging"], parts
    lines = GUIDE.split("\n")
    assert lines[parts["User Guide > Configuration"].start_line - 1] == "Configuration"
    intro = parts["User Guide"].text
    assert "Read install first, then the configuration." in intro, intro
    config = parts["User Guide > Configuration"].text
    assert "Set cache_dir in foo.toml:" in config and 'cache_dir = "/var/cache/foo"' in config, config
    assert "    Not a title\n    ===========" in config  # a literal block's lines as written, no title
    assert "Note: The cache is shared between workers." in config and "settings.py" in config, config
    assert "configure_logging(level)" in parts["User Guide > Configuration > Logging"].text
    whole = "\n".join(s.text for s in doc.sections)
    for unseen in ("a comment", "nor this line", "maxdepth", "linenos", "_config", ":doc:", "toctree"):
        assert unseen not in whole, unseen
    assert intro.startswith("User Guide\n\n") and "-------" not in whole, intro  # adornment lines out
    assert doc.meta["links"] == ["/docs/install.rst", "/docs/tutorial/index.rst"], doc.meta


def test_an_rst_page_beginning_with_a_title_field_is_titled_by_it():
    doc = parse_file("topics/s3.rst",
                     b":title: AWS CLI S3 Configuration\n:category: S3\n\nText.\n\nValues\n======\n\nMore.\n")
    assert doc.title == "AWS CLI S3 Configuration" and doc.sections[1].heading_path == ["Values"], doc


def test_an_asciidoc_file_by_its_sections_blocks_kept_whole():
    doc = parse_file("book/index.adoc", BOOK.encode())
    assert doc.title == "The Foo Book", doc.title
    parts = {" > ".join(s.heading_path): s for s in doc.sections}
    assert list(parts) == ["The Foo Book", "The Foo Book > Getting started",
                           "The Foo Book > Getting started > On Windows"], parts
    started = parts["The Foo Book > Getting started"].text
    assert "Install Foo as the Linux setup says, or read quickstart." in started, started
    assert "== not a heading in a listing\nimport foo" in started and "A worked example" in started, started
    whole = "\n".join(s.text for s in doc.sections)
    for unseen in ("toc", "keywords", "[source", "a comment", "----", "include::"):
        assert unseen not in whole, unseen
    assert doc.meta["tags"] == ["foo", "handbook"]
    assert doc.meta["links"] == ["/book/chapters/appendix.adoc", "/book/setup.adoc"], doc.meta


def test_a_docs_folder_is_searched_by_heading_tag_and_read_by_section(immediate, tmp_path, monkeypatch):
    """The real pipeline: a search finds the section under its heading path, a query's #tag the tagged org note,
    read_file(heading=…) the section's lines, and read_file's backlinks an [[id:…]] link and a :doc: role."""
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.query.engine import Engine
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "docs", {
        "agenda.org": AGENDA, "lists/checklist.org": CHECKLIST, "people.org": PEOPLE,
        "other.md": "# Other\n\nNothing urgent this week: the boiler was serviced in May, the radiators bled and the "
                    "gutters cleared before the autumn storms.\n",
        "guide/index.rst": GUIDE, "guide/install.rst": INSTALL, "book/index.adoc": BOOK, "book/setup.adoc": SETUP})
    published = ingest(root, "docs")["published"]
    assert published["failures"] == [], published
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")

    def found(query: str) -> list[tuple[str, str]]:
        return [(h.path, h.heading_path or "") for h in engine.search(query, mode="keyword").hits]

    assert found("leaking boiler")[0] == ("agenda.org", "Projects > Call the plumber about the leaking boiler")
    urgent = [hit for hit in found("#urgent") if hit[0] == "agenda.org"]  # the words on the headline's line
    assert urgent[0] == ("agenda.org", "Projects > Ship the 2.0 release"), urgent
    assert found("#agenda")[0][0] == "agenda.org", found("#agenda")  # #+FILETAGS
    assert found("syslog")[0] == ("guide/index.rst", "User Guide > Configuration > Logging"), found("syslog")
    assert found("cache warming")[0] == ("book/index.adoc", "The Foo Book > Getting started")
    assert found("PROPERTIES") == [] and found("maxdepth") == []
    sift = Sift(load())
    shown, data = reading.read(sift, "docs/agenda.org", None, None, None, heading="Ship the 2.0 release")
    lines = AGENDA.split("\n")
    first = lines.index("** TODO [#A] Ship the 2.0 release [1/3] :urgent:") + 1
    assert (data["start_line"], data["end_line"]) == (first, lines.index("** WAIT Call the plumber about the leaking "
                                                                         "boiler")), shown
    shown, data = reading.read(sift, "docs/guide/index.rst", None, None, None, heading="Logging")
    assert data["start_line"] == GUIDE.split("\n").index("Logging") + 1 and "syslog" in shown, shown
    shown, data = reading.read(sift, "docs/book/index.adoc", None, None, None, heading="On Windows")
    assert data["start_line"] == BOOK.split("\n").index("=== On Windows") + 1, shown
    # backlinks: an [[id:…]] link to the note holding that id, a :doc: role, an xref, a file: link
    assert "[linked from 1 note: docs/agenda.org]" in reading.read(sift, "docs/people.org", None, None, None)[0]
    assert "[linked from 1 note: docs/guide/index.rst]" in reading.read(sift, "docs/guide/install.rst", None, None,
                                                                         None)[0]
    assert "[linked from 1 note: docs/book/index.adoc]" in reading.read(sift, "docs/book/setup.adoc", None, None,
                                                                        None)[0]
    assert "[linked from 1 note: docs/agenda.org]" in reading.read(sift, "docs/lists/checklist.org", None, None,
                                                                   None)[0]


@settings(max_examples=150, deadline=None)
@given(text=st.lists(st.sampled_from(["* ", "** TODO ", ":PROPERTIES:", ":END:", ":ID: x", "#+BEGIN_SRC", "#+END_SRC",
                                      "[[file:a.org][a]]", "[[", "]]", "Title", "=====", "-----", ".. note::",
                                      ".. code-block:: c", "   ", "::", ":doc:`x`", "= ", "== ", "----", "....",
                                      "xref:a.adoc[]", "<<a,b>>", "include::b.adoc[]", "\n", "\n\n", "x", "é"]),
                     max_size=60).map("".join), name=st.sampled_from(["a.org", "b.rst", "c.adoc"]))
def test_any_markup_text_gives_sections_at_its_own_lines(text, name):
    """Markers in any order, never closed, at a file's end: every section lies within the file's lines."""
    doc = parse_file(name, text.encode())
    lines = text.count("\n") + 1
    for section in doc.sections:
        assert 1 <= section.start_line <= section.end_line <= lines, (section, text)
        assert section.text.strip(), (section, text)


@pytest.mark.timeout(60)
def test_hostile_lines_are_read_in_linear_time():
    """A target pattern read from every 'xref:' of a line of them took 24 s a 900 KB line (five: two minutes); a
    role's name from every ':' of ':a:a:a…', a headline's name over a run of spaces: each now reads a line once."""
    lines = 900_000
    for name, line in (("c.adoc", "xref:" * (lines // 5)), ("c.adoc", "link:" * (lines // 5)),
                       ("b.rst", ":a" * (lines // 2) + ":`x`"), ("a.org", "* x" + " " * lines + "y :t:")):
        doc = parse_file(name, "\n".join([line] * 5).encode())
        assert doc.sections, name


def test_a_code_block_is_kept_whole_where_it_fits():
    """Each reader marks its code blocks atomic (a Section's atomic spans), as a Markdown note's fences are: the
    chunker cuts a long section around them, not through them."""
    org = parse_file("a.org", AGENDA.encode())
    plumber = next(s for s in org.sections if s.heading_path[-1].startswith("Call the plumber"))
    assert [plumber.text[a:b] for a, b in plumber.atomic] == ["* not a headline in a block\nmake release"]
    rst = parse_file("docs/index.rst", GUIDE.encode())
    config = next(s for s in rst.sections if s.heading_path[-1] == "Configuration")
    assert [config.text[a:b] for a, b in config.atomic] == [
        '    [foo]\n    cache_dir = "/var/cache/foo"\n    Not a title\n    ===========', "   import foo"]
    adoc = parse_file("book/index.adoc", BOOK.encode())
    started = next(s for s in adoc.sections if s.heading_path[-1] == "Getting started")
    assert [started.text[a:b] for a, b in started.atomic] == ["== not a heading in a listing\nimport foo"]


FUNCTION_PAGE = """Files
=====

.. function:: open(file, mode='r')

   Open *file* and return a file object.

   .. versionchanged:: 3.3
      The ``'x'`` mode was added.

   .. note::

      Text mode decodes with the locale's encoding::

         with open("a.txt") as f:
             f.read()

   .. index:: single: buffering

   .. a comment in the function's text

   +--------+---------+
   | mode   | meaning |
   +========+=========+

After the function.
"""


def test_an_rst_directive_inside_a_directive_is_read_as_one_at_the_top():
    # Python's docs: a '.. function::' holds '.. versionchanged::', '.. note::', '::' code, index entries, comments,
    # grid tables. They were shown as written ('.. note::', '.. index:: single: buffering', '+====+'), and its code
    # was no block
    doc = parse_file("library/functions.rst", FUNCTION_PAGE.encode())
    whole = "\n".join(s.text for s in doc.sections)
    for unseen in (".. ", "::", "buffering", "a comment", "+---", "+==="):
        assert unseen not in whole, (unseen, whole)
    assert "Versionchanged: 3.3" in whole and "Note:" in whole and "| mode   | meaning |" in whole, whole
    assert "locale's encoding:\n" in whole and "After the function." in whole, whole
    (section,) = doc.sections
    code = [section.text[start:end] for start, end in section.atomic]
    assert code == ['         with open("a.txt") as f:\n             f.read()'], code


def test_an_org_inline_task_is_a_line_of_its_headlines_text_not_a_headline():
    # org-inlinetask: 15 stars or more. Read as a headline, 'Text after' sat under a heading named 'END'
    note = ("* Calls\nText before.\n*************** TODO Call Bob about the parcel :phone:\n"
            "*************** END\nText after the inline task.\n")
    doc = parse_file("inbox.org", note.encode())
    assert [s.heading_path for s in doc.sections] == [["Calls"]], [s.heading_path for s in doc.sections]
    text = doc.sections[0].text
    assert "TODO Call Bob about the parcel :phone:" in text and "Text after the inline task." in text, text
    assert "END" not in text, text


def test_an_org_drawer_never_closed_before_the_next_headline_is_text():
    # a ':work:' line alone opened a drawer to the file's end: every headline after it was lost (one passage)
    doc = parse_file("plan.org", b"* A\nSee the tag\n:work:\nbelow.\n* B\nText of B.\n** C\nText of C.\n")
    parts = {" > ".join(s.heading_path): s.text for s in doc.sections}
    assert parts == {"A": "A\nSee the tag\n:work:\nbelow.", "B": "B\nText of B.", "B > C": "C\nText of C."}, parts


def test_asciidoc_preprocessor_lines_out_and_an_admonition_block_named():
    # 'ifdef::env-github[]' and 'endif::[]' were shown as text; '[NOTE]' over '====' lost the word 'Note'
    book = ("= Book\n:toc: left\nifdef::env-github[]\n:tip-caption: :bulb:\nendif::[]\n\nIntro.\n\n"
            "ifeval::[{sectnumlevels} == 3]\nThree levels.\nendif::[]\nifdef::backend-pdf[Printed only.]\n\n"
            "[NOTE]\n====\nBack up first.\n====\n\n[WARNING,caption=Careful]\nDo not unplug it.\n")
    doc = parse_file("guide/book.adoc", book.encode())
    whole = "\n".join(s.text for s in doc.sections)
    for unseen in ("ifdef", "endif", "ifeval", "sectnumlevels", "[NOTE]", "===="):
        assert unseen not in whole, (unseen, whole)
    assert "Three levels." in whole and "Printed only." in whole, whole
    assert "Note:\n\nBack up first." in whole and "Warning:\nDo not unplug it." in whole, whole


def test_an_rst_only_block_is_read_and_a_role_wrapped_over_two_lines_shows_its_text():
    """A Sphinx ``.. only:: html`` block's text was left out, unsearchable; a role or hyperlink wrapped over two
    lines (as docs wrap them: CMake's, the AWS CLI's) showed ``:ref:`Using pip from`` and ``<pip-cli>` for more``.
    Each line now shows its part of the text, at its own line; a wrapped ``:doc:`` is still a link."""
    page = ("Install\n=======\n\n.. only:: html\n\n   The download badge lives here.\n\n"
            "For more, see :ref:`Using pip from\nyour program <pip-api>`, or the\n`Reference Guide\n"
            "<https://example.com/ref>`__ in the manual, and :doc:`the tutorial\n<tutorial/index>` too.\n")
    doc = parse_file("docs/install.rst", page.encode())
    text = doc.sections[0].text
    assert "The download badge lives here." in text, text
    assert "For more, see Using pip from\nyour program, or the\nReference Guide\nin the manual, and the tutorial\n" \
           "too." in text, text
    assert doc.meta["links"] == ["/docs/tutorial/index.rst"], doc.meta
    lines = page.split("\n")
    assert lines[doc.sections[0].end_line - 1] == "<tutorial/index>` too."
    assert parse_file("b.rst", (":a" * 450_000 + ":`x\nend`").encode()).sections  # an opening on a hostile line


def test_asciidoc_attributes_footnotes_and_antora_xrefs_are_read():
    """'{product}' was shown (and searched) as written, not as the ':product: Sift' the page defines, and an
    include's '{chapters}/x.adoc' was no link; a footnote showed 'footnote:[…]'; an Antora page's
    'xref:admin:backup.adoc[]' linked 'backup.adoc' beside the page, not the module 'admin''s page."""
    page = (":product: Sift\n:chapters: parts\n\n= Install {product}\n\nUse {product} daily.footnote:[Since 2.0.] "
            "Not \\{product}, nor {unknown}.\nSee xref:admin:backup.adoc[backups], xref:setup.adoc[the setup] and "
            "xref:2.0@cli::run.adoc[run].\n\ninclude::{chapters}/one.adoc[]\n\n----\n{product} in a listing\n----\n"
            ":product!:\n{product} unset\n")
    doc = parse_file("docs/modules/ROOT/pages/guide/install.adoc", page.encode())
    assert doc.title == "Install Sift", doc.title
    text = doc.sections[0].text
    assert "Use Sift daily. (Since 2.0.) Not {product}, nor {unknown}.\nSee backups, the setup and run." in text, text
    assert "{product} in a listing" in text and "{product} unset" in text, text  # as Asciidoctor shows them
    assert doc.meta["links"] == ["/docs/modules/ROOT/pages/guide/parts/one.adoc", "/docs/modules/ROOT/pages/setup.adoc",
                                 "/docs/modules/admin/pages/backup.adoc"], doc.meta
    assert parse_file("a.adoc", b"Deploy `+*.war+` files\n").sections[0].text == "Deploy `*.war` files"
    # outside an Antora module, an xref is read from the page's folder, as before
    assert parse_file("book/a.adoc", b"xref:mod:b.adoc[b]\n").meta["links"] == ["/book/b.adoc"]


def test_org_roam_aliases_are_the_notes_aliases_and_find_it(immediate, tmp_path, monkeypatch):
    """org-roam names a note's other names in ROAM_ALIASES ('"Big one" small'): they were a line of text
    ('ROAM_ALIASES: "Brewing log" homebrew'), no alias; now they are the note's aliases, out of the text, and a
    search for one finds the note by its title column, as a Markdown note's front-matter aliases do."""
    from search.query.engine import Engine
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    note = (':PROPERTIES:\n:ID: 7f3a\n:ROAM_ALIASES: "Fermentation diary" kombucha\n:END:\n#+title: Brewing log\n\n'
            "* Batch 12\nSecond ferment with ginger, bottled on Sunday.\n")
    doc = parse_file("roam/brewing.org", note.encode())
    assert doc.meta["aliases"] == ["Fermentation diary", "kombucha"], doc.meta
    assert "ROAM_ALIASES" not in "\n".join(s.text for s in doc.sections)
    root = write_tree(tmp_path / "roam", {"brewing.org": note, "other.org": "#+title: Tea\n\nGreen tea notes.\n"})
    assert ingest(root, "roam")["published"]["failures"] == []
    hits = Engine(Path(os.environ["SIFT_HOME"]) / "index.db").search("fermentation diary", mode="keyword").hits
    assert hits and hits[0].path == "brewing.org", hits
