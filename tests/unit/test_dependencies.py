"""The layers ship exactly the pins the tests run with."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.conftest import ROOT

LAYER_FILES = ("requirements.txt", "requirements-qdrant.txt", "requirements-cohere.txt")


def test_layer_requirements_are_generated_from_pyproject() -> None:
    spec = importlib.util.spec_from_file_location(
        "layer_requirements", ROOT / "infra" / "layer_requirements.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rendered = module.render_all()
    assert sorted(rendered) == sorted(LAYER_FILES)
    for name, text in rendered.items():
        assert (ROOT / "shared" / name).read_text(encoding="utf-8") == text, "run `make layer-requirements`"
    core = rendered["requirements.txt"]
    assert "qdrant-client" not in core and "cohere" not in core, "the optional SDKs are in the core layer"


@pytest.mark.parametrize("name", LAYER_FILES)
def test_every_pin_is_exact(name: str) -> None:
    lines = Path(ROOT / "shared" / name).read_text(encoding="utf-8").splitlines()
    pins = [line for line in lines if line and not line.startswith("#")]
    assert pins and all("==" in pin for pin in pins)
