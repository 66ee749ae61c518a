"""What a user installs: the wheel carries the bundled skills and the templates, and the
bundled skills pass `skills validate --strict`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from codebot.cli import main
from codebot.skills.catalog import bundled_dir

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = ("commit", "debug", "refactor", "review", "test")


def test_bundled_skills_pass_strict_validation(capsys: pytest.CaptureFixture) -> None:
    assert main(["skills", "validate", str(bundled_dir()), "--strict", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["checked"] == len(BUNDLED)
    assert [d for d in report["diagnostics"] if d["severity"] != "info"] == []


@pytest.mark.slow
def test_wheel_ships_bundled_skills_and_templates(tmp_path: Path) -> None:
    pytest.importorskip("build")
    pytest.importorskip("hatchling")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--wheel",
            "--no-isolation",
            "--outdir",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    [wheel] = tmp_path.glob("codebot-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for skill in BUNDLED:
        assert f"codebot/_bundled_skills/{skill}/SKILL.md" in names
    assert {
        "codebot/templates/system.j2",
        "codebot/templates/listing.j2",
        "codebot/templates/reminder.j2",
        "codebot/skills/route/chat_examples.txt",  # small talk by meaning's examples
    } <= names
    unpacked = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(unpacked)
    env = {**os.environ, "PYTHONPATH": str(unpacked)}
    listed = subprocess.run(
        [sys.executable, "-m", "codebot", "skills", "list", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert listed.returncode == 0, listed.stderr
    bundled = [s for s in json.loads(listed.stdout)["skills"] if s["source"] == "bundled"]
    assert sorted(s["name"] for s in bundled) == list(BUNDLED)
    assert all(s["path"].startswith(str(unpacked)) for s in bundled)
