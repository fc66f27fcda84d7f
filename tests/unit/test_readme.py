"""The README documents every setting the code reads (a new variable without a row fails here)."""

from __future__ import annotations

import re

from tests.conftest import ROOT


def test_every_environment_variable_is_documented() -> None:
    source = (ROOT / "shared" / "duocthu" / "settings.py").read_text(encoding="utf-8")
    variables = set(re.findall(r'env\.get\("([A-Z_]+)"\)', source)) - {"AWS_REGION"}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = sorted(v for v in variables if f"`{v}`" not in readme)
    assert variables and not missing, f"README configuration lacks {missing}"


def test_the_two_commands_come_first() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.index("make ask Q=") < readme.index("## Configuration")
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
