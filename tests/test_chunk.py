"""The chunker: limits, coverage, overlap, order and line ranges (hypothesis), and the real tokenizer."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from ingest.chunk import SMALL_CODE_TOKENS, chunk_document, chunk_section, context_of
from ingest.code import parse_code
from ingest.document import Section
from ingest.markdown import parse_markdown


def word_counter(text: str) -> int:
    """A stand-in tokenizer for property tests: one token per word, plus [CLS] and [SEP]."""
    return len(text.split()) + 2


words = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=12)
lines = st.lists(st.lists(words, max_size=30).map(" ".join), min_size=1, max_size=40).map("\n".join)


@settings(max_examples=100, deadline=None)
@given(text=lines, limit=st.integers(8, 80), overlap_fraction=st.floats(0, 0.5), start=st.integers(1, 50))
def test_chunks_respect_limit_cover_everything_and_overlap_within_setting(text, limit, overlap_fraction, start):
    overlap = int(limit * overlap_fraction)
    section = Section(text=text, heading_path=["A", "B"], start_line=start, end_line=start + text.count("\n"))
    chunks = chunk_section(section, word_counter, limit, overlap)
    if not text.strip():
        assert chunks == []
        return
    source_lines = text.split("\n")
    position = 0
    covered_to = 0
    for chunk in chunks:
        assert chunk.tokens == word_counter(chunk.text) <= limit
        assert word_counter(chunk.embedding_text) <= limit, "the heading context fits beside the text"
        assert chunk.heading_path == ["A", "B"]
        found = chunk.offset
        assert text[found:found + len(chunk.text)] == chunk.text, "chunks keep the text verbatim"
        assert found >= position, "chunks come in order"
        assert found <= covered_to, "no gap between consecutive chunks"
        carried = text[found:covered_to]
        assert word_counter(carried) - 2 <= overlap or len(carried.split()) <= overlap
        assert found + len(chunk.text) > covered_to, "every window holds text the ones before it did not"
        covered_to = max(covered_to, found + len(chunk.text))
        position = found + 1
        # line range: the chunk's first and last lines are the source lines it names
        first, last = chunk.start_line - start, chunk.end_line - start
        assert text.count("\n", 0, found) == first
        body = chunk.text.rstrip()
        assert chunk.text.split("\n")[0] in source_lines[first]
        assert last - first == body.count("\n")
    assert covered_to == len(text), "every character lands in some chunk"


def test_consecutive_windows_overlap():
    text = "\n".join(f"line {i} has five words" for i in range(60))
    chunks = chunk_section(Section(text=text, start_line=1), word_counter, 40, 12)
    assert len(chunks) > 3
    for before, after in zip(chunks, chunks[1:]):
        assert after.start_line <= before.end_line, "windows of one section overlap"
        shared = before.end_line - after.start_line + 1
        assert 0 < shared * 5 <= 12


def test_a_line_of_dialogue_before_a_long_paragraph_is_carried_but_never_a_passage_again_on_its_own():
    """Prose: a short line of dialogue, then paragraphs each nearly a window long. The line is carried into
    the next window only where the paragraph still fits beside it; no window holds only text already shown
    (two more passages of the dialogue line alone, 53-54 and 54-54, took a file's places in the results)."""
    paragraph = " ".join(f"word{i}" for i in range(30))
    text = "\n\n".join([paragraph, '"You count too much," the keeper told her.', paragraph, paragraph]) + "\n"
    chunks = chunk_section(Section(text=text, start_line=1), word_counter, 36, 12)
    ends = [chunk.offset + len(chunk.text) for chunk in chunks]
    assert ends == sorted(set(ends)), f"a window repeats text already shown: {[(c.start_line, c.end_line) for c in chunks]}"
    assert sum('"You count too much,"' in chunk.text for chunk in chunks) == 1
    assert "".join(chunk.text for chunk in chunks).count("word29") == 3, "each paragraph in a passage once"


def test_a_scene_break_ends_a_window_and_no_window_carries_text_over_it():
    """A chapter's scenes, `* * *` between them: a window that holds enough already ends at the break, and the
    next begins at it, without the last lines of the scene before (a passage over two scenes matched neither)."""
    harbour = [f"harbour{i} " + " ".join(f"h{i}w{j}" for j in range(8)) for i in range(4)]
    storm = [f"storm{i} " + " ".join(f"s{i}w{j}" for j in range(8)) for i in range(6)]
    text = "\n\n".join(harbour + ["* * *"] + storm) + "\n"
    chunks = chunk_section(Section(text=text, start_line=1), word_counter, 60, 12)
    assert len(chunks) > 1
    for chunk in chunks:
        assert not ("harbour" in chunk.text and "storm" in chunk.text), f"a passage over the break: {chunk.text!r}"
    assert any(chunk.text.lstrip().startswith("* * *") for chunk in chunks)


def test_a_dash_rule_under_a_line_of_text_is_no_scene_break():
    """`---` right under a line is a setext heading's rule (a scan reads it as such), not a break to cut at."""
    body = ["para" + str(i) + " " + " ".join(f"p{i}w{j}" for j in range(8)) for i in range(4)]
    text = "\n\n".join(body) + "\nHeading\n---\n\n" + "\n\n".join(body) + "\n"
    plain = text.replace("\nHeading\n---\n", "\nHeading\nxxx\n")
    cut = [(c.start_line, c.end_line) for c in chunk_section(Section(text=text, start_line=1), word_counter, 60, 12)]
    assert cut == [(c.start_line, c.end_line) for c in chunk_section(Section(text=plain, start_line=1), word_counter, 60, 12)]


def test_atomic_code_fence_is_not_split_when_it_fits():
    fence = "```python\n" + "\n".join(f"x{i} = {i}" for i in range(6)) + "\n```"
    text = "\n".join(["intro words here"] * 12) + "\n" + fence + "\n" + "\n".join(["outro words here"] * 12)
    doc = parse_markdown("n.md", "# Title\n" + text)
    chunks = [c for s in doc.sections for c in chunk_section(s, word_counter, 30, 4)]
    holding = [c for c in chunks if "x3 = 3" in c.text]
    assert holding and all("```python" in c.text and c.text.count("```") == 2 for c in holding)


def test_single_line_longer_than_limit_is_cut_at_words():
    text = " ".join(f"w{i}" for i in range(500))
    chunks = chunk_section(Section(text=text, start_line=7, end_line=7), word_counter, 50, 5)
    assert all(c.tokens <= 50 for c in chunks)
    assert {c.start_line for c in chunks} == {7} and {c.end_line for c in chunks} == {7}
    assert set(" ".join(c.text for c in chunks).split()) == set(text.split())


def test_real_tokenizer_keeps_every_chunk_within_model_limit(embedder):
    text = "\n\n".join(["Sift indexes notes. 合同条款与曲美的云仓WMS项目。" * 30] * 5)
    chunks = chunk_section(Section(text=text, start_line=1), embedder.count, 128, 16)
    assert len(chunks) > 5
    assert all(embedder.count(c.text) == c.tokens <= 128 for c in chunks)
    assert "".join(text.split()) in "".join("".join(c.text.split()) for c in chunks) or \
        all(c.text in text for c in chunks)


def test_every_window_is_embedded_with_the_headings_its_text_does_not_show():
    body = "\n".join(f"Line {i} says something about the installer and its flags." for i in range(40))
    doc = parse_markdown("guide.md", "# Guide\n\n## Install on Linux\n\n" + body + "\n")
    chunks = chunk_document(doc, word_counter, 60, 8)
    windows = [c for c in chunks if c.heading_path == ["Guide", "Install on Linux"]]
    assert len(windows) > 3
    assert windows[0].text.startswith("# Guide\n\n## Install on Linux"), "the bare '# Guide' opens the section"
    assert windows[0].context == "", "the first window shows its own heading and its parent's"
    assert all(c.context == "Guide > Install on Linux" for c in windows[1:])
    for c in windows:
        assert c.embedding_text == (f"{c.context}\n\n{c.text}" if c.context else c.text)
        assert word_counter(c.embedding_text) <= 60
    section = parse_markdown("guide.md", "# Guide\n\n## Install on Linux\n\n" + body + "\n").sections[0]
    section.text = section.text.split("\n", 2)[2].lstrip()  # the section as it starts under its own heading
    first = chunk_section(section, word_counter, 60, 8)[0]
    assert first.context == "Guide", "a first window that shows only its own heading gets the parent's"


def test_a_window_among_a_long_tables_rows_is_embedded_with_its_header_row():
    """The later windows of a long table held rows alone ('| Alice | 555-0100 | Oslo |'): what the columns are
    reached the model in the first window only."""
    rows = "\n".join(f"| Person {i} | 555-01{i:02} | City {i} |" for i in range(60))
    doc = parse_markdown("people.md", "# Contacts\n\n| Name | Phone | City |\n|---|:--|--:|\n" + rows + "\n\nDone.\n")
    chunks = chunk_document(doc, word_counter, 60, 8)
    assert len(chunks) > 3
    assert "| Name | Phone | City |" in chunks[0].text and "Name" not in chunks[0].context
    later = [c for c in chunks[1:] if c.text.lstrip().startswith("| Person")]
    assert len(later) == len(chunks) - 1 or len(later) == len(chunks) - 2
    for c in later:
        assert c.context == "Contacts\n| Name | Phone | City |", c.context
        assert "Name" not in c.text, "the text stays as written: the header is context only"
        assert c.embedding_text == f"{c.context}\n\n{c.text}" and word_counter(c.embedding_text) <= 60
    assert "".join(c.text for c in chunks).count("Person 59") >= 1
    plain = parse_markdown("list.md", "# Contacts\n\n" + "\n".join(f"Person {i} lives in City {i}." for i in range(60)))
    assert all(c.context in ("", "Contacts") for c in chunk_document(plain, word_counter, 60, 8))


def test_a_section_that_fits_is_one_chunk_and_needs_no_context_it_shows():
    doc = parse_markdown("paper.md", "# Dendritic arbors\n\nShort abstract about neurons.\n")
    [chunk] = chunk_document(doc, word_counter, 60, 8)
    assert chunk.context == "" and chunk.embedding_text == chunk.text
    assert context_of(["Paper", "Methods"], "We measured arbors.") == "Paper > Methods"
    assert context_of(["", " "], "text") == "", "empty headings (a '# ' line) add nothing"


def test_a_section_opened_by_its_parents_headings_is_embedded_without_them_again():
    """A bare '# Git' opens the section of '## Undo' below it: the first window shows both headings, so its
    context is empty (it was 'Git > Undo' before the text that shows them); a window past them gets both."""
    [chunk] = chunk_document(parse_markdown("git.md", "# Git\n\n## Undo\nreset --soft keeps the changes\n"),
                             word_counter, 60, 8)
    assert (chunk.heading_path, chunk.context, chunk.start_line) == (["Git", "Undo"], "", 1)
    assert context_of(["Git", "Undo"], "Git\n===\n\nUndo\n----\nreset") == "", "setext headings too"
    assert context_of(["Git", "Undo"], "reset --soft keeps the changes") == "Git > Undo"
    assert context_of(["Setup", "Setup on Linux"], "## Setup on Linux\nSetup on Linux needs") == "Setup", \
        "a parent shown only inside its child's heading is still added"


def test_a_section_opened_by_bare_sibling_headings_shows_its_own_and_its_parents():
    """'## Empty' over its sibling '## Next' opens Next's section; the context passes over that heading line:
    the text shows 'Title' and 'Next', so nothing is added, and under 'Git' only the parent is."""
    note = "# Title\n## Empty\n\n## Next\ntext under next\n"
    [chunk] = chunk_document(parse_markdown("n.md", note), word_counter, 60, 8)
    assert (chunk.heading_path, chunk.context, chunk.start_line, chunk.end_line) == (["Title", "Next"], "", 1, 5)
    [chunk] = chunk_document(parse_markdown("n.md", "# Git\n\nIntro.\n\n## Stash\n## Rebase\nrebase moves\n"),
                             word_counter, 60, 8)[1:]
    assert (chunk.text, chunk.context) == ("## Stash\n## Rebase\nrebase moves", "Git")


def test_headings_too_long_for_a_quarter_of_the_limit_are_left_out():
    long_heading = " ".join(["word"] * 30)
    section = Section(text="\n".join(["one two three four five"] * 30), heading_path=[long_heading])
    chunks = chunk_section(section, word_counter, 60, 8)
    assert len(chunks) > 1 and all(c.context == "" for c in chunks)
    assert all(c.tokens <= 60 for c in chunks)


RETRY = '''"""Retry a call with exponential backoff."""
import random
import time


def backoff(attempt, base=0.5, cap=30.0):
    """Seconds to wait before the given attempt: exponential in the attempt, capped, with full jitter so that
    many clients failing together do not all come back at the same moment and fail together again."""
    return random.uniform(0, min(cap, base * 2 ** attempt))


def retry(call, attempts=5):
    """Call until it succeeds or the attempts run out, sleeping between tries; the last error is raised."""
    for attempt in range(attempts):
        try:
            return call()
        except OSError:
            if attempt == attempts - 1:
                raise
            time.sleep(backoff(attempt))


if __name__ == "__main__":
    retry(print)
'''


def test_a_code_files_imports_join_the_definition_below_them(embedder):
    """tree-sitter gives a module's docstring and imports a section of their own: a chunk of a few lines
    embeds as generic code and ranked high in semantic search and 'similar' for anything. A code section
    under SMALL_CODE_TOKENS joins the definition after it (the one before at the end of the file) when the
    two fit in one chunk; the line ranges stay those of the text. Where they do not fit, it stays alone."""
    doc = parse_code("retry.py", RETRY)
    assert [(s.heading_path, s.start_line, s.end_line) for s in doc.sections] == [
        (["retry"], 1, 5), (["retry", "backoff"], 6, 11), (["retry", "retry"], 12, 20), (["retry"], 21, 24)]
    assert embedder.count(doc.sections[0].text) < SMALL_CODE_TOKENS > embedder.count(doc.sections[-1].text)
    chunks = chunk_document(doc, embedder.count, 256, 32)
    assert [(c.heading_path, c.start_line, c.end_line) for c in chunks] == [
        (["retry", "backoff"], 1, 9), (["retry", "retry"], 12, 24)]
    lines = RETRY.split("\n")
    for c in chunks:
        assert c.text.strip() == "\n".join(lines[c.start_line - 1:c.end_line]).strip()
        assert c.tokens == embedder.count(c.text) and embedder.count(c.embedding_text) <= 256
    assert "".join(c.text for c in chunks).replace("\n", "") == RETRY.replace("\n", "")
    limit = embedder.count(doc.sections[1].text) + 4  # backoff alone fits, not with the imports
    chunks = chunk_document(doc, embedder.count, limit, 8)
    assert chunks[0].heading_path == ["retry"] and (chunks[0].start_line, chunks[0].end_line) == (1, 3)
    assert all(c.tokens <= limit and embedder.count(c.embedding_text) <= limit for c in chunks)
    markdown = parse_markdown("n.md", "# A\n\nshort\n\n## B\n\nalso short\n")
    assert len(chunk_document(markdown, embedder.count, 256, 32)) == 2, "only code sections are joined"


def _named(heading_path: list[str]) -> tuple[list[str], int]:
    """The definitions a code passage's heading names after its owners, and how many more its '+N' says."""
    last = heading_path[-1]
    more = re.search(r" \+(\d+)$", last)
    shown = last[:more.start()] if more else last
    return [name.split(".")[-1] for name in shown.split(", ")], int(more.group(1)) if more else 0


def _held_definitions(doc, chunk) -> list[list[str]]:
    """The heading paths of the sections starting in a chunk that enclose no other one of them (a class's header
    line, a module's imports name nothing of their own beside the methods and definitions after them)."""
    held = [s.heading_path for s in doc.sections if chunk.start_line <= s.start_line <= chunk.end_line]
    return list(dict.fromkeys(tuple(p) for p in held if not any(len(q) > len(p) and q[:len(p)] == p for q in held)))


@pytest.mark.parametrize("module", ["pypdf/errors.py", "huey/contrib/mini.py", "huey/api.py"])
def test_a_passage_of_joined_code_sections_names_every_definition_it_holds(embedder, module):
    """A code section under SMALL_CODE_TOKENS joins its neighbour; the passage kept the neighbour's heading path
    alone: pypdf's 'class XmpDocumentError' was found under 'errors > LimitReachedError', huey's
    MiniHuey.periodic_task under 'mini > MiniHuey > start'. Its heading names each definition it holds, after
    what they share. Real installed sources, parsed and cut as an index cuts them."""
    import huey
    import pypdf
    root = {"pypdf": Path(pypdf.__file__).parent, "huey": Path(huey.__file__).parent}[module.split("/")[0]]
    source = root.joinpath(*module.split("/")[1:])
    doc = parse_code(source.name, source.read_text(encoding="utf-8"))
    chunks = chunk_document(doc, embedder.count, 256, 32)
    joined = 0
    for chunk in chunks:
        held = _held_definitions(doc, chunk)
        if len(held) < 2:
            continue
        joined += 1
        shared = 0
        while all(len(p) > shared + 1 and p[shared] == held[0][shared] for p in held):
            shared += 1
        assert chunk.heading_path[:-1] == list(held[0][:shared]), (chunk.heading_path, held)
        names, more = _named(chunk.heading_path)
        assert names == [p[-1] for p in held][:len(names)] and len(names) + more == len(held), (chunk.heading_path, held)
        assert embedder.count(chunk.embedding_text) <= 256
    assert joined, f"no passage of {module} joins two definitions"
    if module == "pypdf/errors.py":
        xmp = next(c for c in chunks if "class XmpDocumentError" in c.text)
        assert xmp.heading_path[0] == "errors" and {"XmpDocumentError", "LimitReachedError"} <= set(_named(
            xmp.heading_path)[0]), xmp.heading_path
    if module == "huey/contrib/mini.py":
        periodic = next(c for c in chunks if "def periodic_task(" in c.text)
        assert periodic.heading_path == ["mini", "MiniHuey", "periodic_task, start"]


def test_a_heading_names_three_joined_definitions_and_counts_the_rest(embedder):
    """Many tiny definitions joined into one passage: the heading stays short, 'a, b, c +3'; a class's header
    joined to its method is named by the method, 'Box.get' where the passage holds other definitions too."""
    text = '"""Tiny helpers."""\n' + "".join(f"\n\ndef f{i}():\n    return {i}\n" for i in range(5)) + \
        "\n\nclass Box:\n    def get(self):\n        return self.v\n"
    doc = parse_code("tiny.py", text)
    chunks = chunk_document(doc, embedder.count, 256, 32)
    assert [c.heading_path for c in chunks] == [["tiny", "f0, f1, f2 +3"]]
    chunks = chunk_document(parse_code("tiny.py", text.split("\n\ndef f1")[0] + "\n\nclass Box:" +
                                       text.split("class Box:")[1]), embedder.count, 256, 32)
    assert [c.heading_path for c in chunks] == [["tiny", "f0, Box.get"]]


def test_a_block_named_by_its_names_joined_to_a_definition_counts_them_all(embedder):
    """Go's ``const ( … )`` is headed by its names ('A, B, C +2'); joined to a short function, the passage's
    heading counts the block's hidden names with the rest instead of listing 'A, B, C +2, Get'."""
    from search.query.symbols import defines
    text = "package shop\n\nconst (\n\tA = 1\n\tB = 2\n\tC = 3\n\tD = 4\n\tE = 5\n)\n\nfunc Get() int { return A }\n"
    doc = parse_code("shop.go", text)
    assert [s.heading_path for s in doc.sections] == [["shop"], ["shop", "A, B, C +2"], ["shop", "Get"]]
    [chunk] = chunk_document(doc, embedder.count, 256, 32)
    assert chunk.heading_path == ["shop", "A, B, C +3"]
    assert defines(["B"], " > ".join(chunk.heading_path), chunk.text)
    assert defines(["Get"], " > ".join(chunk.heading_path), chunk.text)


def test_a_title_holding_a_heading_separator_stays_one_name(embedder):
    """A test's title is written freely: 'adds a, b', 'x > y', 'counts +1'. Joined into one passage, the heading
    'cart.test > cart > adds a, b, x > y +2' was read as a level 'adds a, b, x' holding 'y' and two hidden names:
    search.query.symbols.defines found 'y' defined there and 'counts +1' not. Each title stays one name, as written."""
    from search.query.symbols import defines
    titles = ["adds a, b", "x > y", "counts +1"]
    tests = (f'  it("{title}", () => {{\n    expect(cart.size).toBe({i});\n  }});\n' for i, title in enumerate(titles))
    text = 'describe("cart", () => {\n' + "".join(tests) + "});\n"
    doc = parse_code("cart.test.js", text)
    [chunk] = chunk_document(doc, embedder.count, 256, 32)
    heading = " > ".join(chunk.heading_path)
    assert heading.split(" > ")[:2] == ["cart.test", "cart"] and len(heading.split(" > ")) == 3, heading
    names, more = _named(chunk.heading_path)
    assert [name.replace("\xa0", " ") for name in names] == titles and more == 0, heading
    assert not defines(["y"], heading, chunk.text)
    assert heading.replace("\xa0", " ") == "cart.test > cart > adds a, b, x > y, counts +1", "read as written"


def test_chinese_text_without_spaces_is_cut_at_clause_marks_and_windows_still_overlap():
    """A long run of Chinese characters has no space to cut at: it was cut into pieces of a whole chunk each,
    so consecutive chunks shared nothing and a word across a cut (一段 as 一 | 段) was in no chunk, not found by
    keyword search. A Chinese sentence that runs on with commas was cut mid-word as well."""
    from ingest.chunk import plain_count
    run = "".join(chr(0x4e00 + (i * 7919) % 20000) for i in range(600))  # no punctuation, no repeats nearby
    chunks = chunk_section(Section(text=run, start_line=1, end_line=1), plain_count, 64, 8)
    assert all(c.tokens <= 64 for c in chunks) and len(chunks) > 8
    assert [run[i:i + 2] for i in range(len(run) - 1) if not any(run[i:i + 2] in c.text for c in chunks)] == []
    for before, after in zip(chunks, chunks[1:]):
        assert 0 < before.offset + len(before.text) - after.offset <= 8, "consecutive chunks share a few characters"
    clauses = "，".join("这是一个用逗号连接起来的很长的分句" for _ in range(40)) + "。"
    chunks = chunk_section(Section(text=clauses, start_line=1, end_line=1), plain_count, 64, 8)
    assert {c.text[-1] for c in chunks} == {"，", "。"}, [c.text[-3:] for c in chunks]


def test_a_passage_is_embedded_with_the_footnotes_it_cites_from_the_end_of_the_chapter():
    """A chapter's footnotes stand at its end, windows away from the sentence citing them: the citing passage is
    embedded with the definition (its source), within the limit; passages citing nothing are not, and the text
    of every passage is as written."""
    filler = "\n\n".join(" ".join(f"f{i}w{j}" for j in range(20)) for i in range(8))
    note = ("# 4. The Storm\n\nThe rain came sideways and they sat in the boathouse.[^1] Later[^gone] it stopped.\n\n"
            f"{filler}\n\n[^1]: Force 10 on the Beaufort scale, from the Met Office table.\n"
            "```\n[^1]: not a definition, inside code\n```\n")
    doc = parse_markdown("chapters/04.md", note)
    assert doc.footnotes == {"1": "Force 10 on the Beaufort scale, from the Met Office table."}
    chunks = chunk_document(doc, word_counter, 40, 8)
    citing = [c for c in chunks if "boathouse.[^1]" in c.text]
    assert citing and all("[^1]: Force 10 on the Beaufort scale" in c.embedding_text for c in citing)
    assert all(word_counter(c.embedding_text) <= 40 for c in chunks)
    others = [c for c in chunks if "[^1]" not in c.text]
    assert others and not any("Beaufort" in c.embedding_text for c in others)
    assert "".join(c.text for c in chunks).count("Beaufort") == 1, "only the definition's own passage shows it"


def test_a_chunk_size_leaving_no_room_for_text_is_a_settings_fault_said_as_one():
    """SIFT_CHUNK_TOKENS=2 beside a model's two special tokens left no room: the chunker raised a bare ValueError,
    which a file's failure then read as a bug in Sift ('please report it'); it is the setting's, said so."""
    from search.settings import SettingError
    from workers.retry import describe

    def with_two_special(text: str) -> int:
        return len(text.split()) + 2

    text = "\n".join(f"line {i} has five words" for i in range(20))
    with pytest.raises(SettingError) as raised:
        chunk_section(Section(text=text, start_line=1), with_two_special, 2, 0)
    assert raised.value.variables == ("SIFT_CHUNK_TOKENS",)
    said = describe(raised.value)
    assert said.startswith("SIFT_CHUNK_TOKENS=2 leaves no room") and "report" not in said
