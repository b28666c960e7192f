"""An HTML file is a page (ingest.webpage: its text by heading) or a template or fragment (code, by lines).

A Confluence or Notion page documenting Jinja or Liquid holds '{%' in its code blocks, and was read as a template:
its passages markup, its text not found as a page's. A template's tags stand around its markup, outside any code
element, and it stays code. A file not read yet was listed as code whatever it was: list_files and `ingest files`
now say what it will be read as."""
from __future__ import annotations

import json
import os

import pytest

from ingest.parse import parse_file
from tests.conftest import run_ingest, write_tree

JINJA_DOCS = """<!DOCTYPE html>
<html><head><title>Engineering : Email templates</title></head>
<body><div id="main-content" class="wiki-content">
<h1>Email templates</h1>
<p>The welcome email is a Jinja template; loop over the items so:</p>
<div class="code panel"><pre class="syntaxhighlighter-pre">{% for item in order.items %}
  &lt;li&gt;{{ item.name }}&lt;/li&gt;
{% endfor %}</pre></div>
<p>Escape a literal tag with <code>{% raw %}</code>, and print the title with <code>{{ page.title }}</code>.</p>
</div></body></html>
"""
LIQUID_DOCS = """<html><head><meta charset="utf-8"/><title>Shopify theme notes</title></head><body>
<article class="page"><h1 class="page-title">Shopify theme notes</h1>
<p>The product loop in Liquid:</p>
<pre class="code"><code>{%- for product in collection.products -%}
  {{ product.title | escape }}
{%- endfor -%}</code></pre>
<p>Prices go through the <code>money</code> filter.</p></article></body></html>
"""
TEMPLATES = {
    "templates/base.html": "<!DOCTYPE html>\n<html>\n<head><title>{% block title %}Shop{% endblock %}</title></head>\n"
                           "<body>{% block content %}{% endblock %}</body>\n</html>\n",
    "templates/list.html": "<!DOCTYPE html>\n<html><body>\n<ul>\n{% for item in items %}\n  <li>{{ item }}</li>\n"
                           "{% endfor %}\n</ul>\n<pre>{{ debug }}</pre>\n</body></html>\n",
    "layouts/theme.html": "<!doctype html>\n<html>\n<body>\n{%- if template == 'index' -%}\n<h1>{{ shop.name }}</h1>\n"
                          "{%- endif -%}\n<code>x</code>\n</body>\n</html>\n",
    "templates/link.html": '<!DOCTYPE html>\n<html><body><a href="{{ url_for(\'index\') }}">Home</a></body></html>\n',
    "templates/late.html": "<!DOCTYPE html>\n<html><body><pre>{% example %}</pre>\n<p>Hi</p>\n{% include 'f.html' %}"
                           "\n</body></html>\n",
    "views/show.html": "<!DOCTYPE html>\n<html><body><h1><%= @post.title %></h1></body></html>\n",
}


def test_a_page_documenting_jinja_or_liquid_in_its_code_blocks_is_a_page():
    docs = parse_file("Confluence/ENG/Email-templates_4.html", JINJA_DOCS.encode())
    assert (docs.kind, docs.title) == ("note", "Engineering : Email templates")
    text = "\n".join(s.text for s in docs.sections)
    assert "{% for item in order.items %}" in text and "<li>{{ item.name }}</li>" in text and "<div" not in text
    liquid = parse_file("Notion/Shopify theme notes 1a2b.html", LIQUID_DOCS.encode())
    assert liquid.kind == "note" and "{%- for product in collection.products -%}" in liquid.sections[0].text


@pytest.mark.parametrize("path", sorted(TEMPLATES))
def test_a_template_with_its_tags_around_its_markup_stays_code(path):
    assert parse_file(path, TEMPLATES[path].encode()).kind == "code"


def test_a_code_element_left_open_hides_no_template_before_it():
    opened = "<!DOCTYPE html>\n<html><body>{% block body %}<pre>{% example %}\n</body></html>\n"
    assert parse_file("t.html", opened.encode()).kind == "code"
    documented = "<!DOCTYPE html>\n<html><body><p>Text</p><pre>{% example %}\n</body></html>\n"
    assert parse_file("d.html", documented.encode()).kind == "note"


@pytest.fixture
def env(immediate, sift_env, monkeypatch):
    from workers import runtime
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    runtime.reset()
    return {**sift_env, "SIFT_EMBEDDINGS": "off"}


def test_an_html_file_not_read_yet_is_listed_as_what_it_will_be_read_as(env, tmp_path):
    """A page of an export waiting to be read was listed as code (the kind its name gives), then as a note once
    read: a model choosing kind='note' from the listing left it out, one choosing 'code' found nothing."""
    from search.index import db, store
    files = {"wiki/Email-templates.html": JINJA_DOCS, "wiki/Theme.htm": LIQUID_DOCS,
             "templates/base.html": TEMPLATES["templates/base.html"], "static/widget.html": '<div class="w">Hi</div>\n',
             "wiki/utf16.html": "", "wiki/empty.html": ""}
    root = write_tree(tmp_path / "site", files)
    (root / "wiki/utf16.html").write_bytes("<!DOCTYPE html><html><body><p>Hallo</p></body></html>".encode("utf-16"))
    conn = db.connect(os.path.join(env["SIFT_HOME"], "index.db"))
    collection = store.ensure_collection(conn, "site", str(root))
    gen = store.begin_generation(conn, collection["id"], None)
    store.record_plan(conn, gen, collection["id"], {p: "added" for p in files}, {}, len(files))
    conn.close()
    printed = json.loads(run_ingest(env, "files", "--sort", "path", "--json").stdout)
    assert [(f["relative_path"], f["kind"], f["state"]) for f in printed["files"]] == [
        ("static/widget.html", "code", "pending"), ("templates/base.html", "code", "pending"),
        ("wiki/Email-templates.html", "note", "pending"), ("wiki/Theme.htm", "note", "pending"),
        ("wiki/empty.html", "code", "pending"), ("wiki/utf16.html", "note", "pending")], printed
