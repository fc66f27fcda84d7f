"""Print the layers' requirements files from pyproject's pinned dependencies.

python infra/layer_requirements.py --write     (or: make layer-requirements)

The core layer (shared/requirements.txt) holds what the handlers import on the default path;
qdrant-client (a Qdrant server, QdrantUrl) and the cohere SDK (RerankProvider=cohere) are each in
their own layer, attached only when configured: together they would more than double the core.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADER = (
    "# Generated from pyproject.toml [project.dependencies] by infra/layer_requirements.py; do not edit.\n"
)
# requirements file -> the distributions it holds; the core file takes every other pin
OPTIONAL = {"requirements-qdrant.txt": ("qdrant-client",), "requirements-cohere.txt": ("cohere",)}
CORE = "requirements.txt"


def _name(pin: str) -> str:
    return pin.split("==")[0].split("[")[0].strip().lower()


def render_all() -> dict[str, str]:
    pins = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    files: dict[str, list[str]] = {CORE: [], **{name: [] for name in OPTIONAL}}
    for pin in sorted(pins, key=str.lower):
        owner = next((f for f, names in OPTIONAL.items() if _name(pin) in names), CORE)
        files[owner].append(pin)
    return {name: HEADER + "".join(f"{pin}\n" for pin in lines) for name, lines in files.items()}


if __name__ == "__main__":
    rendered = render_all()
    if sys.argv[1:] == ["--write"]:
        for name, text in rendered.items():
            (ROOT / "shared" / name).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write("".join(f"## shared/{name}\n{text}" for name, text in rendered.items()))
