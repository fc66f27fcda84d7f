"""The layer ships exactly the pins the tests run with."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tests.conftest import ROOT


def test_layer_requirements_are_generated_from_pyproject() -> None:
    spec = importlib.util.spec_from_file_location(
        "layer_requirements", ROOT / "infra" / "layer_requirements.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = (ROOT / "shared" / "requirements.txt").read_text(encoding="utf-8")
    assert committed == module.render(), "run `make layer-requirements`"


def test_every_pin_is_exact() -> None:
    lines = Path(ROOT / "shared" / "requirements.txt").read_text(encoding="utf-8").splitlines()
    pins = [line for line in lines if line and not line.startswith("#")]
    assert pins and all("==" in pin for pin in pins)
