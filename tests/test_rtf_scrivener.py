"""Rich Text Format (ingest.rtf) and a Scrivener project's scenes titled by its binder (ingest.scrivener).

Before, .rtf was among the 'kinds Sift does not read': a novelist's Scrivener project, its scenes content.rtf
files named by UUIDs, could not be searched at all, and a scene could not be found by its title in the binder."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from ingest.document import Skip
from ingest.kinds import kind_of
from ingest.parse import parse_file
from tests.conftest import ingest, write_tree

COCOA_HEAD = ("{\\rtf1\\ansi\\ansicpg1252\\cocoartf2639\n\\cocoatextscaling0\\cocoaplatform0{\\fonttbl\\f0\\fnil"
              "\\fcharset0 Palatino-Roman;}\n{\\colortbl;\\red255\\green255\\blue255;}\n{\\*\\expandedcolortbl;;}\n"
              "\\pard\\tx360\\sl264\\slmult1\\pardirnatural\\partightenfactor0\n\n\\f0\\fs26 \\cf0 ")


def rtf(body: str) -> bytes:
    """A scene as Scrivener 3 on a Mac writes it (Cocoa's RTF: a line break is a backslash before the newline)."""
    return (COCOA_HEAD + body + "}").encode("ascii")


QUAY = rtf("\\'93Captain Ferreira?\\'94 Mara asked. His eyes were amber \\uc0\\u8212  the colour of weak tea.\\\n"
           "{\\*\\comment not the text}\\'93My brother has been dead since March,\\'94 said the captain on the Cais do "
           "Sodr\\'e9.\\\n\\\n{\\b The} end \\u26143?")
UUIDS = ("7C9E1B2A-3D4F-4A5B-8C6D-1E2F3A4B5C6D", "A1B2C3D4-E5F6-4711-8899-AABBCCDDEEFF")
BINDER = f"""<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<ScrivenerProject Template="NO" Version="2.0" Creator="SCRMAC-3.2.3-17136">
  <Binder>
    <BinderItem UUID="0F0E0D0C-0B0A-4909-8807-060504030201" Type="DraftFolder">
      <Title>Manuscript</Title>
      <Children>
        <BinderItem UUID="11111111-2222-4333-8444-555555555555" Type="Folder">
          <Title>Part One: Lisbon</Title>
          <Children>
            <BinderItem UUID="{UUIDS[0]}" Type="Text"><Title>Meeting at the Quay</Title></BinderItem>
          </Children>
        </BinderItem>
        <BinderItem UUID="{UUIDS[1]}" Type="Text"><Title>Night Crossing</Title></BinderItem>
      </Children>
    </BinderItem>
  </Binder>
</ScrivenerProject>
"""


def test_rtf_is_read_as_its_text_its_escapes_decoded_its_control_words_and_groups_left_out():
    assert kind_of("Novel.scriv/Files/Data/X/content.rtf") == "note" and kind_of("letter.RTF") == "note"
    doc = parse_file("drafts/quay.rtf", QUAY)
    assert doc.kind == "note" and doc.title == "quay", doc.title  # no \info title: its file's name
    text = doc.sections[0].text
    assert text.split("\n") == [
        "“Captain Ferreira?” Mara asked. His eyes were amber — the colour of weak tea.",
        "“My brother has been dead since March,” said the captain on the Cais do Sodré.",
        "The end 星?"], text
    titled = parse_file("letter.rtf", b"{\\rtf1\\ansi{\\info{\\title The Caf\\'e9 Letter}{\\author Ana Sousa}}"
                                      b"\\pard Dear M.\\par}")
    assert titled.title == "The Café Letter" and titled.sections[0].text == "Dear M.", titled
    assert titled.meta["author"] == "Ana Sousa", titled.meta  # as a .docx's: search's author filter
    pictured = parse_file("figure.rtf", b"{\\rtf1 Before {\\*\\shppict{\\pict\\pngblip 89504e47{\\*\\blipuid 0a}1a0a}}"
                                         b"after \\{the picture\\}.\\par{\\pict 00}End.}")
    assert pictured.sections[0].text == "Before after {the picture}.\nEnd.", pictured.sections  # its hex cut
    rtfd = parse_file("letters/To Ines.rtfd/TXT.rtf", b"{\\rtf1 Dear Ines.}")  # TextEdit's, saved with a picture
    assert rtfd.title == "To Ines", rtfd.title
    with pytest.raises(Skip, match="no RTF"):
        parse_file("notes.rtf", b"just text saved with the wrong name\n")


def test_a_scrivener_scene_is_titled_by_its_binder_and_searched_and_read_as_its_text(immediate, tmp_path,
                                                                                    monkeypatch):
    """A scene found by its binder title and by a line of its dialogue (curly quotes, an accent), under the binder
    folders holding it; its synopsis titled after it; read_file shows the scene's text, not RTF's control words."""
    from mcp_server import reading
    from mcp_server.service import Sift
    from search.query.engine import Engine
    from search.settings import load
    monkeypatch.setenv("SIFT_EMBEDDINGS", "off")
    root = write_tree(tmp_path / "novel", {
        "Novel.scriv/Novel.scrivx": BINDER,
        f"Novel.scriv/Files/Data/{UUIDS[0]}/synopsis.txt": "Mara meets the captain and learns his brother is dead.\n",
        "Bible/characters.md": "# Mara Quill\n\nEyes: green.\n",
        "Novel.scriv/Settings/recents.txt": "Meeting at the Quay\nNight Crossing\n",  # Scrivener's, not the writer's
        f"Novel.scriv/Snapshots/{UUIDS[1]}.snapshots/2026-02-01-10-00-00-0100.rtf": "{\\rtf1 Maria crossed alone.}"})
    for uuid, body in zip(UUIDS, (QUAY, rtf("The crossing to Madeira took four days."))):
        (root / f"Novel.scriv/Files/Data/{uuid}").mkdir(parents=True, exist_ok=True)
        (root / f"Novel.scriv/Files/Data/{uuid}/content.rtf").write_bytes(body)
    published = ingest(root, "novel")["published"]
    assert ".rtf" not in published["unread"], published
    assert [(f["path"], f["state"]) for f in published["failures"]] == [("Novel.scriv/Settings/recents.txt",
                                                                          "skipped")], published["failures"]
    engine = Engine(Path(os.environ["SIFT_HOME"]) / "index.db")

    def found(query: str):
        return [(h.path, h.title, h.heading_path, h.start_line, h.end_line)
                for h in engine.search(query, mode="keyword").hits]

    scene = f"Novel.scriv/Files/Data/{UUIDS[0]}/content.rtf"
    by_title = found("Meeting at the Quay")  # the scene and its synopsis, titled after it
    assert {hit[0] for hit in by_title[:2]} == {scene, scene.replace("content.rtf", "synopsis.txt")}, by_title
    assert next(hit[1:3] for hit in by_title if hit[0] == scene) == ("Meeting at the Quay",
                                                                     "Manuscript > Part One: Lisbon")
    assert found('"my brother has been dead since March"')[0][0] == scene
    assert found("Sodré")[0][0] == scene
    assert found("Night Crossing")[0][1:3] == ("Night Crossing", "Manuscript")
    assert not any("Settings/" in hit[0] for hit in found("Night Crossing")), found("Night Crossing")
    assert found("Maria crossed")[0][1:3] == ("Night Crossing (snapshot)", "Manuscript")  # an earlier version
    synopsis = next(hit for hit in found("learns his brother") if hit[0].endswith("synopsis.txt"))
    assert synopsis[1] == "Meeting at the Quay (synopsis)", synopsis
    _, _, _, first, last = found("weak tea")[0]
    shown, data = reading.read(Sift(load()), f"novel/{scene}", first, last, None)
    assert "His eyes were amber — the colour of weak tea." in shown and "\\par" not in shown, shown
    assert "cocoartf" not in shown and data["total_lines"] == 3, (shown, data)
    assert "[an RTF document: its text as Sift reads it" in shown, shown  # not 'a Word document'

