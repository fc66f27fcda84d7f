"""Print shared/requirements.txt (what the layer build installs) from pyproject's pinned dependencies.

python infra/layer_requirements.py > shared/requirements.txt     (or: make layer-requirements)
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADER = (
    "# Generated from pyproject.toml [project.dependencies] by infra/layer_requirements.py; do not edit.\n"
)


def render() -> str:
    pins = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    return HEADER + "".join(f"{pin}\n" for pin in sorted(pins, key=str.lower))


if __name__ == "__main__":
    sys.stdout.write(render())
