"""`read_json_object`: somebody else's JSON file, read once, bounded, never waited on."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codebot.skills.files.safe_read import read_json_object


def test_read_json_object_refuses_what_is_not_an_object(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text('{"name": "x"}')
    assert read_json_object(good, 1024) == {"name": "x"}
    for text, said in (
        ("[1]", "a JSON list, not an object"),
        ("{", "Expecting"),
        ("\udcff", "utf-8"),
    ):
        bad = tmp_path / "bad.json"
        bad.write_bytes(text.encode("utf-8", "surrogateescape"))
        with pytest.raises(ValueError, match=said):
            read_json_object(bad, 1024)
    with pytest.raises(FileNotFoundError):
        read_json_object(tmp_path / "missing.json", 1024)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(OSError):  # refused at once, never waited on
        read_json_object(fifo, 1024)
