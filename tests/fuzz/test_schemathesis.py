"""schemathesis against docs/openapi.json on `duocthu serve` (loopback, the sample index).

Every response must be declared for its operation, with its declared content type, headers and
schema, and no response may be a 5xx; an undeclared method must answer 405 with Allow. A network
error (a dropped or reset connection) fails the run too. This bounded run is part of `make test`;
`make fuzz` runs the same test longer (DUOCTHU_FUZZ_EXAMPLES, DUOCTHU_FUZZ_SECONDS).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.integration.test_handlers import env  # noqa: F401 - fixture
from tests.integration.test_localserver import server  # noqa: F401 - fixture: `duocthu serve` on a free port

CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "unsupported_method",
    "allow_header_conformance",
)
EXAMPLES = int(os.environ.get("DUOCTHU_FUZZ_EXAMPLES", "25"))
SECONDS = os.environ.get("DUOCTHU_FUZZ_SECONDS")  # a time budget for the long run
SEED = os.environ.get("DUOCTHU_FUZZ_SEED", "20261201")


def schemathesis_command(url: str, report: Path) -> list[str]:
    st = shutil.which("st", path=str(Path(sys.executable).parent))
    assert st, "schemathesis is in the [test] extra"
    command = [
        st,
        "run",
        str(ROOT / "docs" / "openapi.json"),
        "--url",
        url,
        "--checks",
        ",".join(CHECKS),
        "--phases",
        "examples,coverage,fuzzing",
        "--max-examples",
        str(EXAMPLES),
        "--seed",
        SEED,
        "--generation-database",
        "none",
        "--workers",
        "2",
        "--request-timeout",
        "30",
        "--no-color",
        "--report",
        "junit",
        "--report-junit-path",
        str(report),
    ]
    return [*command, "--max-time", SECONDS] if SECONDS else command


def test_every_response_matches_the_openapi_document(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    url = request.getfixturevalue("server")
    result = subprocess.run(
        schemathesis_command(url, tmp_path / "junit.xml"),
        cwd=tmp_path,  # schemathesis keeps a cache folder in its working directory
        capture_output=True,
        text=True,
        timeout=3600,
        env={**os.environ, "SCHEMATHESIS_TELEMETRY": "false"},
    )
    summary = result.stdout[-4000:]
    print(
        *(line for line in result.stdout.splitlines() if "generated" in line or "found in" in line), sep="\n"
    )
    assert result.returncode == 0, summary
    assert "No issues found" in result.stdout, summary
