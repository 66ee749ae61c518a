"""No bench script is named like a module the code imports: tests put bench/ first on
sys.path to import its generators, and a `bench/mcp.py` there made `import mcp` (the MCP
SDK) load the benchmark instead, failing every MCP test that ran after it in a worker."""

from __future__ import annotations

import sys
from importlib.metadata import packages_distributions
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"


def test_no_bench_script_shadows_an_installed_or_standard_module():
    installed = set(packages_distributions())
    taken = installed | set(sys.stdlib_module_names) | {"codebot"}
    clashes = sorted(p.name for p in BENCH.glob("*.py") if p.stem in taken)
    assert not clashes, f"rename these bench scripts: {clashes}"
