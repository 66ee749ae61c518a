"""The cold task's build (issue 36 §4): what it leaves out must change nothing it makes.

- bm25s' term-frequency formula is restated in `postings.tf_part`: the same bits as
  bm25s', and a cold task in print mode no longer imports bm25s at all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from gen_skills import generate


@pytest.mark.parametrize(("k1", "b"), [(1.2, 0.75), (0.0, 0.0), (2.0, 1.0), (1.5, 0.3)])
def test_tf_part_is_bm25s_lucene_tf_bit_for_bit(k1, b):
    from bm25s.scoring import _score_tfc_lucene

    from codebot.skills.route.index.postings import tf_part

    rng = np.random.default_rng(7)
    tf = rng.integers(1, 70_000, 5_000).astype(np.float32)
    lens = rng.integers(0, 3_000, 5_000).astype(np.float32)
    for avg in (1.0, 37.25, 812.123456789):
        want = _score_tfc_lucene(tf, lens, avg, k1, b).astype(np.float32)
        got = tf_part(tf, lens, avg, k1, b).astype(np.float32)
        assert got.dtype == want.dtype
        assert got.tobytes() == want.tobytes()


PROBE = (
    "import json, runpy, sys\nsys.argv = ['codebot', '-p', sys.argv[1], '--trust']\n"
    "try:\n    runpy.run_module('codebot', run_name='__main__')\nexcept SystemExit:\n    pass\n"
    "print(json.dumps({m: m in sys.modules for m in ('numpy', 'bm25s', 'tqdm')}), "
    "file=sys.stderr)"
)


def _env(home: Path) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "CODEBOT_MODEL"
    }
    env["CODEBOT_HOME"] = str(home)
    return env


def test_a_cold_task_builds_the_router_index_without_bm25s(tmp_path):
    """A task from an empty $CODEBOT_HOME builds and saves the router's index (numpy is
    loaded: the probe can tell) and never imports bm25s (nor its tqdm)."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    generate(project / ".codebot" / "skills", 300, seed=2)
    home = tmp_path / "home"
    out = subprocess.run(
        [sys.executable, "-c", PROBE, "write a changelog entry for the parser fix"],
        cwd=project,
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=120,
    )
    loaded = json.loads(out.stderr.strip().splitlines()[-1])
    assert loaded == {"numpy": True, "bm25s": False, "tqdm": False}
    assert any((home / "cache" / "router").rglob("*")), "the router index was not saved"
