"""Bugs found in review of the ingest side (HTML pages, CSV tables, JSON/YAML data sets, generated-code markers):
each lost text a user had written, or read it wrong."""
from __future__ import annotations

import pytest

from ingest.parse import parse_file


def _page(body: str, head: str = "<head><meta charset=utf-8><title>Runbook</title></head>") -> list[str]:
    doc = parse_file("Runbook.html", f"<!DOCTYPE html>\n<html>{head}\n<body>\n{body}\n</body></html>\n".encode())
    return [s.text for s in doc.sections]


def test_a_page_whose_head_is_not_closed_is_read():
    """'</head>' may be left out (HTML5; html-minifier's removeOptionalTags, Google's style guide): the <head> was
    skipped up to the page's end, and the page read as no text."""
    assert _page("<h1>Failover</h1><p>Promote the replica first.</p>",
                 head="<head><meta charset=utf-8><title>Runbook</title>") == [
        "Failover\nPromote the replica first."]


@pytest.mark.parametrize("body", [
    "<ul><li class='menu-item'>Home<li>About</ul><p>Promote the replica first.</p>",
    "<p class='footer-note'>Edited by Ana<p>Promote the replica first.</p><p>Then the primary.</p>",
    "<p class='breadcrumb'>Docs / Ops<div><p>Promote the replica first.</div>",
    "<table><tr><td class='sidebar'>Links<td>Promote the replica first.</table>",
    "<dl><dt class='nav'>Ops<dd>Promote the replica first.</dl>",
])
def test_a_skipped_element_whose_end_tag_is_left_out_ends_where_a_browser_ends_it(body):
    """An element taken for navigation by its class words whose end tag HTML lets one leave out (<li>, <p>, <td>,
    <dt>, <dd>): it was held open to the page's end (each next <li> or <p> counted as one inside it), and the rest
    of the page was skipped. It ends where a browser ends it: at the next <li>, the next block, its list's end."""
    assert "Promote the replica first." in "\n".join(_page(body))
    assert not {"Home", "Edited by Ana", "Docs / Ops", "Links", "Ops"} & set("\n".join(_page(body)).split("\n"))


def test_the_main_content_inside_a_nav_element_is_read():
    """<main> inside <nav> (a site whose layout wraps the page in its navigation element): skipped with the nav."""
    assert _page("<nav><a href='/'>Home</a><main><p>Promote the replica first.</p></main></nav>") == [
        "Promote the replica first."]


def test_a_skipped_element_still_holds_what_is_inside_it():
    """What is inside navigation stays out, its unclosed <li> and <p> too, up to its own end tag."""
    assert _page("<div class='sidebar'><ul><li>Home<li>About</ul><p>Menu text</div><p>Promote the replica.</p>"
                 ) == ["Promote the replica."]
    assert _page("<nav><ul><li>Home<li><ul><li>Sub</ul></ul></nav><p>Promote the replica.</p>") == [
        "Promote the replica."]


def test_a_stray_inline_end_tag_does_not_end_a_skipped_paragraph():
    assert _page("<p class='footer'>Edited by <b>Ana</i> on Monday</p><p>Promote the replica.</p>") == [
        "Promote the replica."]


def test_a_yaml_list_of_prose_records_is_read_whole_not_as_a_data_set():
    """A YAML list of messages or questions and answers (a site's _data/faq.yml, a chat exported to YAML) is records
    of prose, read whole as the same list in JSON is. Its records were outlined with every value dropped, so none
    said anything in words: each was a data set, its first 30 lines all that search found."""
    from ingest.code import parse_code
    faq = "".join(f"- question: How do I rotate the key number {i} on the staging cluster?\n"
                  f"  answer: >-\n    Run the rotate script from the ops host, then restart worker {i} and check"
                  f" its logs for the new fingerprint.\n" for i in range(400))
    assert len(faq) > 64 * 1024
    doc = parse_code("site/_data/faq.yml", faq)
    assert "data_set" not in doc.meta
    assert "worker 399" in "\n".join(s.text for s in doc.sections)
    nested = "faq:\n" + "".join("  " + line if line else line for line in faq.splitlines(keepends=True))
    assert "data_set" not in parse_code("site/_data/faq.yml", nested).meta
    numbers = "".join(f"- id: {i}\n  amount: {i * 3}.50\n  currency: EUR\n  due_date: 2024-01-{i % 28 + 1:02}\n"
                      for i in range(1200))
    assert parse_code("fixtures/invoices.yml", numbers).meta["data_set"]  # records of values still are one


def test_a_csv_whose_first_line_is_a_title_with_a_semicolon_is_read_by_its_commas():
    """The separator was chosen by the first line alone: a comma table under a title 'Budget 2024; draft' was read
    by ';', each row one cell ('Desk,200,Ana'). It is the mark every line holds the same number of."""
    doc = parse_file("budget.csv", b"Budget 2024; draft\nItem,Cost,Owner\nDesk,200,Ana\nChair,90,Bob\n")
    assert [s.text for s in doc.sections][-2:] == ["Desk | 200 | Ana", "Chair | 90 | Bob"]


def test_a_title_line_above_a_csv_header_is_no_column_name():
    """A spreadsheet exported with its title on the first line ('Budget 2024', then 'Item,Cost,Owner'): the title
    was taken for the column names, and the column names for a row; every passage was headed by the title and no
    row by its columns. The title is a passage of its own; the header below it names the columns."""
    doc = parse_file("budget.csv", b"Budget 2024\nItem,Cost,Owner\nDesk,200,Ana\nChair,90,Bob\n")
    assert doc.meta["columns"] == "Item | Cost | Owner"
    assert [(s.text, s.start_line) for s in doc.sections] == [
        ("Budget 2024", 1), ("Desk | 200 | Ana", 3), ("Chair | 90 | Bob", 4)]
    # a one-column list whose line holds a comma is no title and header
    doc = parse_file("tasks.csv", b"Tasks\nBuy milk, eggs\nCall Ana\n")
    assert doc.meta["columns"] == "Tasks"
    assert [s.text for s in doc.sections] == ["Buy milk, eggs", "Call Ana"]  # one column: its comma no separator


@pytest.mark.parametrize("path, text", [
    ("build.gradle.kts", "/*\n * This file was generated by the Gradle 'init' task.\n *\n * This generated file "
     "contains a sample Java application project to get you started.\n */\n\nplugins {\n    application\n}\n\n"
     "dependencies {\n    implementation(\"com.stripe:stripe-java:24.0.0\")\n}\n"),
    ("settings.gradle", "/*\n * This file was generated by the Gradle 'init' task.\n */\n\nrootProject.name = "
     "'billing'\ninclude('app')\n"),
    ("spec/spec_helper.rb", "# This file was generated by the `rspec --init` command. Conventionally, all\n# specs "
     "live under a `spec` directory.\nRSpec.configure do |config|\n  config.order = :random\nend\n"),
    ("spec/spec_helper.rb", "# This file was generated by the `rails generate rspec:install` command. Conventionally, "
     "all\n# specs live under a `spec` directory.\nRSpec.configure do |config|\n  config.order = :random\nend\n"),
    ("webpack.config.js", "// Generated using webpack-cli https://github.com/webpack/webpack-cli\n\nconst path = "
     "require('path');\nmodule.exports = { entry: './src/index.js' };\n"),
])
def test_a_file_a_tool_wrote_once_for_the_project_to_edit_is_read(path, text):
    """'gradle init' heads a project's build.gradle(.kts) and settings.gradle 'This file was generated by the Gradle
    'init' task.', 'rspec --init' its spec_helper.rb, 'webpack init' its webpack.config.js: each then the project's
    own, edited for each dependency or setting. They were skipped as generated (a search for the Stripe dependency
    found nothing), as Django's migrations and settings were."""
    from ingest.code import parse_code
    assert parse_code(path, text).sections


def test_a_generator_script_that_names_the_banner_it_writes_is_read():
    """A script's header comment saying what it writes ('The output starts with a DO NOT EDIT banner') named a
    marker, and was taken for one (the header is read to its 20th line since generators' headers are long)."""
    from ingest.code import parse_code
    from ingest.document import Skip
    text = ("#!/usr/bin/env python3\n# Copyright 2024 Acme\n#\n# Licensed under the Apache License, Version 2.0\n#\n"
            "# Writes src/api.ts from openapi.yaml. The output starts with a\n# DO NOT EDIT banner: run this script"
            " again instead of editing it.\nimport sys\n\n\ndef main():\n    return sys.argv\n")
    assert parse_code("scripts/gen_api.py", text).sections
    with pytest.raises(Skip):  # a generated file's own banner still skips it
        parse_code("src/api.py", "# Code generated by gen_api.py. DO NOT EDIT.\nimport sys\n")


@pytest.mark.parametrize("text", [b",value\n0,1.5\n1,2.5\n", b"Name,\nAna,3\nBob,4\n"])
def test_a_header_with_one_column_unnamed_is_no_title_line(text):
    """pandas writes a Series with its index unnamed (',value'); a header may leave a column unnamed ('Name,'):
    a header, not a title above one."""
    assert parse_file("readings.csv", text).meta["columns"] == text.decode().split("\n")[0].replace(",", " | ").strip()


def test_a_title_line_excel_wrote_across_the_columns_is_a_title():
    doc = parse_file("budget.csv", b"Budget 2024,,\nItem,Cost,Owner\nDesk,200,Ana\n")
    assert doc.meta["columns"] == "Item | Cost | Owner"
    assert [s.text for s in doc.sections] == ["Budget 2024", "Desk | 200 | Ana"]


@pytest.mark.parametrize("quote", ['"', ""])
def test_a_table_with_a_cell_past_128_kib_is_read(quote):
    """A cell of more than the csv module's field limit (128 KiB: a ticket's long description, a JSON blob an export
    keeps in a cell), quoted or not, made the whole file 'not a readable CSV table': every row of it lost."""
    big = "word " * 30_000
    doc = parse_file("tickets.csv", f"Id,Title,Description\n1,Login fails,{quote}{big}{quote}\n2,Export slow,ok\n"
                     .encode())
    assert [s.text for s in doc.sections][1] == "2 | Export slow | ok"
    assert doc.sections[0].text.startswith("1 | Login fails | word word")


@pytest.mark.parametrize("folder", ["Exports.tmp", "old~", "#inbox#", "Photos.icloud", "drafts.swp"])
def test_a_folder_named_like_an_editors_temp_file_is_read(tmp_path, folder):
    """The editors' and sync tools' temp names ('*.tmp', '*~', '#*#', '*.icloud' …) are files', but as ignore
    patterns they left out a folder of such a name and every note in it, unsaid ('Exports.tmp/ is in the ignore
    list'), as '4913' did a folder of that number. Their temp files inside a folder are still left out."""
    from ingest.discover import walk, why_not_indexed
    (tmp_path / folder).mkdir()
    (tmp_path / folder / "plan.md").write_text("# Plan\n")
    (tmp_path / folder / "plan.md.tmp").write_text("x\n")
    (tmp_path / folder / "plan.md~").write_text("x\n")
    assert [f.path for f in walk(tmp_path)] == [f"{folder}/plan.md"]
    assert why_not_indexed(tmp_path, f"{folder}/plan.md") is None
    assert "ignore list" in why_not_indexed(tmp_path, f"{folder}/plan.md~")


def test_a_yaml_mapping_of_named_prose_records_is_read_whole():
    """A site's _data/authors.yml (a record under each author's name, with a bio) has the shape of Rails' fixtures,
    which were a data set whatever their records said: the first 30 lines were all search found of it."""
    from ingest.code import parse_code
    authors = "".join(f"author{i}:\n  name: Author {i}\n  bio: >-\n    Writes about distributed databases and the "
                      f"on-call life, author of runbook chapter {i}.\n  twitter: a{i}\n" for i in range(600))
    assert len(authors) > 64 * 1024
    doc = parse_code("_data/authors.yml", authors)
    assert "data_set" not in doc.meta
    assert "runbook chapter 599" in "\n".join(s.text for s in doc.sections)
    fixtures = "".join(f"invoice_{i}:\n  amount: {i * 3}.50\n  currency: EUR\n  due_date: 2024-01-{i % 28 + 1:02}\n"
                       for i in range(1200))
    assert parse_code("test/fixtures/invoices.yml", fixtures).meta["data_set"]  # Rails' fixtures still are one


@pytest.mark.parametrize("wrapper", ['<div class="layout layout--with-sidebar">', '<div class="page has-sidebar">',
                                     '<div id="wrapper" class="no-sidebar">', '<section class="docs with_nav">'])
def test_a_wrapper_whose_class_says_the_layout_has_a_sidebar_is_read(wrapper):
    """'layout--with-sidebar', 'has-sidebar', 'no-sidebar' (BEM and theme modifiers) say how the page is laid out,
    not that the element is its navigation: the wrapper was skipped for the word 'sidebar', and with it the page."""
    tag = wrapper[1:wrapper.index(" ")]
    assert _page(f'{wrapper}<div class="sidebar"><a href="/">Home</a></div><div class="content"><h1>Failover</h1>'
                 f"<p>Promote the replica first.</p></div></{tag}>") == ["Failover\nPromote the replica first."]
