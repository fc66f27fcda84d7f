"""Benchmarks: `duocthu bench NAME [options]` runs `duocthu.tools.bench.NAME.main(argv)`.

Each prints a table with the comparison baseline measured in the same run. Speed and memory
targets live here, never in timed tests.
"""

from __future__ import annotations

import os
from pathlib import Path

KIT_DIR_ENV = "DUOCTHU_KIT_DIR"
DEFAULT_KIT_DIR = Path("../shared")  # the team kit beside the repository the tools run from


def atc_csv() -> Path:
    """The kit's ATC table: `$DUOCTHU_KIT_DIR/data/atc-dataset-v2.csv`, the kit defaulting to
    `../shared` of the current directory (the tools run from the repository root)."""
    return Path(os.environ.get(KIT_DIR_ENV) or DEFAULT_KIT_DIR) / "data" / "atc-dataset-v2.csv"
