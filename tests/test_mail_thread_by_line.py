"""A mailbox of ten years holds many threads of one Subject ('Roof budget' each spring). A search hit in one is
headed 'Re: Roof budget', lines 2791-2797; read_file heading='thread: Re: Roof budget' answered 'several headings
holding' and named the first dozen of a hundred messages ('Re: Roof budget (line 217)' …), seldom the hit's, and
'(line N)' had to be a message's first line. Any line of the message now names it, a hit's start_line too, and
the answer says so."""
from __future__ import annotations

from tests.conftest import ingest

PEOPLE = ("Anna Keller <anna@example.com>", "Bo Lind <bo@example.com>", "Carol Jones <carol@example.com>")


def _mailbox() -> str:
    """Ten springs of 'Roof budget', each a thread of three messages, a word of that year's in each."""
    messages = []
    for year in range(2015, 2025):
        for n in range(3):
            parent = f"In-Reply-To: <roof{year}-{n - 1}@example.com>\n" if n else ""
            messages.append(
                f"From - Mon Mar  {n + 2} 09:00:00 {year}\nFrom: {PEOPLE[n]}\nTo: {PEOPLE[(n + 1) % 3]}\n"
                f"Subject: {'Re: ' if n else ''}Roof budget\nMessage-ID: <roof{year}-{n}@example.com>\n{parent}"
                f"Date: Mon, 0{n + 2} Mar {year} 09:00:00 +0000\n\n"
                f"The roof of {year}: {'gutters' if n == 0 else 'scaffolding' if n == 1 else 'zinc'} word{year}.\n")
    return "\n".join(messages)


def test_a_hits_line_names_its_message_and_thread_over_mcp(immediate, sift_env, tmp_path, servers, monkeypatch):
    from tests.test_mcp_server import call, run, text
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = tmp_path / "mail"
    root.mkdir()
    (root / "Inbox").write_text(_mailbox())
    assert ingest(root, "mail")["published"]["failures"] == []

    async def scenario():
        async with servers.session({**sift_env, "SIFT_EMBEDDINGS": "off"}, "--no-worker") as s:
            found = await call(s, "search", query="scaffolding word2019", mode="keyword", limit=1)
            hit = found.structured_content["results"][0]
            at = hit["start_line"] + 2  # any line of the message
            return (hit, await call(s, "read_file", path="mail/Inbox", heading="thread: Re: Roof budget"),
                    await call(s, "read_file", path="mail/Inbox", heading=f"thread: Re: Roof budget (line {at})"),
                    await call(s, "read_file", path="mail/Inbox", heading=f"Re: roof budget (line {at})"),
                    await call(s, "read_file", path="mail/Inbox", heading=f"Tax return (line {at})"))
    hit, several, thread, message, other = run(scenario)
    assert hit["heading_path"] == "Re: Roof budget", hit
    assert several.is_error and "name the one you mean by a line of it, a search hit's start_line: " \
        "heading='thread: Re: Roof budget (line N)'" in text(several), text(several)
    assert not thread.is_error, text(thread)
    assert text(thread).count("word2019") == 3, text(thread)  # the hit's thread, its three messages
    assert "word2018" not in text(thread) and "word2020" not in text(thread), text(thread)
    assert not message.is_error and "scaffolding word2019" in text(message) and "zinc" not in text(message)
    assert other.is_error and "has no heading 'Tax return (line" in text(other), text(other)  # no other Subject's


def test_a_line_of_thousands_of_digits_is_a_heading_as_written():
    """'(line 999…)' of 5,000 digits: int() refused it (Python's bound on a number's digits), and read_file failed
    with a ValueError; it is read as the heading it writes, which no message has."""
    from mcp_server.conversations import named_by_line
    heading = "Re: Roof budget (line " + "9" * 5000 + ")"
    assert named_by_line(heading, [(0, 1, "Re: Roof budget (line 1)")], [(0, 12)]) == heading
