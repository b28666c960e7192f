"""A configuration's blocks read from a hostile one-line file (ingest.code_forms.config_blocks): each '{' copied its
line from the start as the block's name, and each block's path held all its ancestors'. The time it takes is in
bench's figures, not here; these check the result."""
from ingest.code_forms import config_blocks


def test_blocks_opened_on_one_line_are_each_named_by_their_own_words():
    """'http { server { location /api/ {' named its blocks 'http { server' and 'http { server { location /api/':
    a block's name is the words after the brace before it."""
    text = "http { server { location /api/ {\n    proxy_pass http://127.0.0.1:9000;\n}\n}\n}\n"
    assert [parts for parts, *_ in config_blocks.outline(text)] == [
        ["http"], ["http", "server"], ["http", "server", "location /api/"]]


def test_a_line_of_nested_braces_is_named_by_its_words_up_to_the_deepest_kept():
    """A line of 'a {' a hundred times outlines a hundred blocks, each named 'a' (the 100th was named by the line's
    300 characters before it, cut to 80); one more is no configuration someone reads by its blocks: windowed by lines
    (its paths held depth x depth names)."""
    deepest = config_blocks.MOST_DEPTH
    found = config_blocks.outline("a {" * deepest + "\n" + "}\n" * deepest)
    assert len(found) == deepest and found[-1][0] == ["a"] * deepest and found[-1][1:3] == (0, 1) and found[0][1:3] == (0, deepest)
    assert config_blocks.outline("a {" * (deepest + 1) + "\n" + "}\n" * (deepest + 1)) == []
    assert config_blocks.outline("a{" * 500_000) == []
