"""Readiness that tells the truth: a failed start is retried after a backoff (not kept for the
container's life), /health checks each configured dependency and names what is down without
paths, endpoints, buckets or table names, and /v1/chat answers the documented ABSTAIN meanwhile."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from duocthu.api import runtime as runtime_module
from duocthu.api.runtime import get_runtime
from duocthu.api.services import health as health_module
from duocthu.catalog.artifact import Catalog
from duocthu.ingest.pipeline import ingest_records
from duocthu.models.source import Monograph
from duocthu.settings import Settings, get_settings
from duocthu.store.edge import EdgeStore
from moto import mock_aws

from tests.integration.test_handlers import call, env, http_event, load_function  # noqa: F401 - fixture

pytestmark = pytest.mark.usefixtures("env")


@pytest.fixture
def empty_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "secret-internal-folder"
    monkeypatch.setenv("DUOCTHU_DATA_DIR", str(folder))
    monkeypatch.setattr(runtime_module, "RETRY_FIRST_S", 0.3)
    get_settings.cache_clear()
    get_runtime.cache_clear()
    yield folder
    get_runtime().store.close()


def test_a_failed_start_is_retried_after_a_backoff(
    empty_data_dir: Path, sample_records: list[Monograph]
) -> None:
    chat = load_function("chat")
    status, body, _ = call(chat, http_event("GET", "/health"))
    assert status == 503 and body["reason"].startswith("index_missing")
    assert "secret-internal-folder" not in json.dumps(body)
    status, answer, _ = call(
        chat, http_event("POST", "/v1/chat", {"message": "Chống chỉ định của ibuprofen?"})
    )
    assert status == 200 and (answer["decision"], answer["system_error"]) == ("ABSTAIN", "store_unavailable")
    # the manifest is restored (an ingest from another process)
    store = EdgeStore(empty_data_dir)
    ingest_records(sample_records, store, get_settings())
    store.close()
    time.sleep(0.4)  # past the backoff (the next test shows no rebuild inside it)
    status, body, _ = call(chat, http_event("GET", "/health"))
    assert status == 200 and body["status"] == "ok"
    status, answer, _ = call(
        chat, http_event("POST", "/v1/chat", {"message": "Chống chỉ định của ibuprofen?"})
    )
    assert status == 200 and answer["decision"] == "ANSWERABLE"


def test_the_backoff_doubles_and_is_capped(empty_data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    builds: list[float] = []
    real = runtime_module.build_runtime

    def counted(settings: object) -> runtime_module.Runtime:
        builds.append(time.monotonic())
        return real(settings)  # type: ignore[arg-type]

    monkeypatch.setattr(runtime_module, "build_runtime", counted)
    monkeypatch.setattr(runtime_module, "RETRY_FIRST_S", 0.1)
    monkeypatch.setattr(runtime_module, "RETRY_MAX_S", 0.2)
    finish = time.monotonic() + 1.0
    while time.monotonic() < finish:
        get_runtime()
        time.sleep(0.01)
    gaps = [b - a for a, b in itertools.pairwise(builds)]
    # 100 calls in a second, but only a build per backoff: 0.1 s, then 0.2 s (the cap)
    assert 4 <= len(builds) <= 7, builds
    assert gaps[0] >= 0.1 and all(g >= 0.2 for g in gaps[1:]), gaps


def test_health_names_a_conversation_store_that_is_down(monkeypatch: pytest.MonkeyPatch) -> None:
    with mock_aws():
        monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-southeast-1")
        monkeypatch.setenv("CONVERSATION_TABLE", "prod-conversations-table-name")
        get_settings.cache_clear()
        get_runtime.cache_clear()
        from duocthu.store.sessions import get_conversation_store

        get_conversation_store.cache_clear()
        status, body, _ = call(load_function("chat"), http_event("GET", "/health"))
        get_conversation_store.cache_clear()
    assert status == 503 and body["reason"].startswith("conversations_unavailable")
    assert body["providers"]["conversations"] == "dynamodb"
    assert "prod-conversations-table-name" not in json.dumps(body)


def test_health_names_an_unreadable_catalogue_artifact(
    monkeypatch: pytest.MonkeyPatch, sample_index: tuple[EdgeStore, Catalog, Settings]
) -> None:
    catalog = sample_index[1]
    with mock_aws():
        monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-southeast-1")
        s3 = boto3.client("s3")
        s3.create_bucket(
            Bucket="internal-bucket", CreateBucketConfiguration={"LocationConstraint": "ap-southeast-1"}
        )
        manifest = sample_index[0].active_manifest()
        assert manifest is not None
        version = manifest.version
        key = f"duocthu/{version}/catalog.json"  # each version's catalogue under the prefix
        s3.put_object(Bucket="internal-bucket", Key=key, Body=catalog.model_dump_json().encode())
        monkeypatch.setenv("CATALOG_S3_URI", "s3://internal-bucket/duocthu")
        get_settings.cache_clear()
        get_runtime.cache_clear()
        health_module._s3_client.cache_clear()
        chat = load_function("chat")
        assert call(chat, http_event("GET", "/health"))[0] == 200
        s3.delete_object(Bucket="internal-bucket", Key=key)
        status, body, _ = call(chat, http_event("GET", "/health"))
        health_module._s3_client.cache_clear()
    assert status == 503 and body["reason"].startswith("catalog_unavailable")
    assert "internal-bucket" not in json.dumps(body)


def test_health_answers_in_time_when_the_conversation_table_hangs(
    monkeypatch: pytest.MonkeyPatch, aws_env: None, hanging_endpoint: str
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", hanging_endpoint)
    monkeypatch.setenv("CONVERSATION_TABLE", "conversations")
    get_settings.cache_clear()
    get_runtime.cache_clear()
    from duocthu.store.sessions import get_conversation_store

    get_conversation_store.cache_clear()
    chat = load_function("chat")
    started = time.monotonic()
    status, body, _ = call(chat, http_event("GET", "/health"))
    elapsed = time.monotonic() - started
    get_conversation_store.cache_clear()
    assert status == 503 and body["reason"].startswith("conversations_unavailable")
    assert elapsed < health_module.HEALTH_BUDGET_S  # one attempt (3 s), the retry refused
