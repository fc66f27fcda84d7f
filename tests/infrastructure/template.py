"""Read template.yaml (CloudFormation short-form tags as their long form), with the reader
`infra/check_build.py` uses, so the build check and the tests read the template one way."""

from __future__ import annotations

import sys
from functools import lru_cache
from typing import Any

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "infra"))  # the infra tools are scripts, not a package
import check_build


@lru_cache(maxsize=1)
def read_sam_template() -> dict[str, Any]:
    return check_build.read_template(ROOT / "template.yaml")
