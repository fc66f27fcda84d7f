"""Every example command in the README runs as written: each `make ask Q="…"` question answers
(the CLI's exit 0), and each curl command, run by a shell as printed, gets a JSON answer from
`duocthu serve` (`localhost:3000` and `$API` point at a server on a free port). The commands that
need AWS credentials or Docker (`sam deploy`, `sam local`, `aws …`) are not run here."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator

import pytest
from duocthu.tools.cli import main as cli
from duocthu.tools.localserver import PooledHTTPServer, make_server

from tests.conftest import ROOT
from tests.integration.test_handlers import env  # noqa: F401 - fixture

README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```[a-z]*\n(.*?)```", README, flags=re.S)
# inline spans (one may wrap over a line break in the prose) and the lines of fenced blocks
SPANS = [" ".join(s.split()) for s in re.findall(r"`([^`]+)`", re.sub(r"```.*?```", "", README, flags=re.S))]
SPANS += [line.split("  #", 1)[0].strip() for block in BLOCKS for line in block.splitlines()]
QUESTIONS = sorted({m for span in SPANS for m in re.findall(r'make ask Q="([^"]+)"', span)})
CURLS = sorted({s for s in SPANS if s.startswith("curl ") and ("localhost:" in s or "$API" in s)})


def test_the_readme_has_examples_to_run() -> None:
    assert len(QUESTIONS) >= 10 and len(CURLS) >= 3


@pytest.mark.usefixtures("env")
@pytest.mark.parametrize("question", QUESTIONS)
def test_each_make_ask_question_answers(question: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["ask", question]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.strip()


@pytest.fixture
def served(request: pytest.FixtureRequest) -> Iterator[PooledHTTPServer]:
    request.getfixturevalue("env")
    httpd = make_server(port=0, workers=2)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
@pytest.mark.parametrize("command", CURLS)
def test_each_curl_command_gets_a_json_answer(served: PooledHTTPServer, command: str) -> None:
    base = f"http://127.0.0.1:{served.server_address[1]}"
    as_run = command.replace("localhost:3000", base.removeprefix("http://"))
    done = subprocess.run(
        ["sh", "-c", as_run], capture_output=True, text=True, timeout=60, env={**os.environ, "API": base}
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert "error" not in answer, answer  # e.g. a form media type's 415
    assert answer.get("status") == "ok" or answer.get("decision") == "ANSWERABLE", answer
