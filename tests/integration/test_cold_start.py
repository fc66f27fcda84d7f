"""What a handler's cold start imports, the way Lambda starts it: a fresh interpreter, the function's
folder as the task root, tracing active. Time is measured by `duocthu bench chat`; these tests pin
the imports that time depends on, so a stray import on the cold path fails here first."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from duocthu.api.http import traced_libraries
from duocthu.settings import Settings

from tests.conftest import ROOT

_IMPORT_HANDLER = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("app", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
print(json.dumps(sorted(sys.modules)))
"""


def cold_start_modules(function: str, data_dir: Path, **env: str) -> set[str]:
    folder = ROOT / "functions" / function
    configured = ("POWERTOOLS_", "QDRANT_", "COHERE_", "RERANK_")
    environment = {k: v for k, v in os.environ.items() if not k.startswith(configured)}
    environment.update(
        DUOCTHU_DATA_DIR=str(data_dir),
        LAMBDA_TASK_ROOT=str(folder),
        AWS_LAMBDA_FUNCTION_NAME=f"test-{function}",
        POWERTOOLS_METRICS_NAMESPACE="DuocthuTest",
        **env,
    )
    result = subprocess.run(
        [sys.executable, "-c", _IMPORT_HANDLER, str(folder / "app.py")],
        env=environment,
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout.splitlines()[-1]))


@pytest.mark.parametrize("function", ["chat", "understand", "retrieve"])
def test_embedded_cold_start_skips_what_it_never_runs(function: str, tmp_path: Path) -> None:
    modules = cold_start_modules(function, tmp_path)
    assert "aws_xray_sdk.ext.botocore.patch" in modules  # tracing is on, as deployed
    never = {
        "httpx",  # only a Qdrant server or Cohere calls over httpx
        "qdrant_client",
        "cohere",
        "duocthu.ingest.pipeline",  # building an index is the CLI's job, not a request's
        "duocthu.tools.localserver",
        "http.server",
        "sqlite3",  # Powertools' default tracer would patch (and import) every library X-Ray supports
        "requests",
    }
    assert not never & modules


def test_a_deployment_calling_over_httpx_traces_it(tmp_path: Path) -> None:
    modules = cold_start_modules("retrieve", tmp_path, COHERE_API_KEY="not-used-at-start")
    assert "aws_xray_sdk.ext.httpx.patch" in modules


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({}, ("botocore",)),
        ({"qdrant_url": "https://x.cloud.qdrant.io"}, ("botocore", "httpx")),
        ({"cohere_api_key": "k"}, ("botocore", "httpx")),
        ({"cohere_api_key": "k", "rerank_provider": "bedrock"}, ("botocore",)),
    ],
)
def test_traced_libraries_follow_the_configured_clients(
    settings: dict[str, str], expected: tuple[str, ...], tmp_path: Path
) -> None:
    assert traced_libraries(Settings(data_dir=tmp_path, **settings)) == expected  # type: ignore[arg-type]
