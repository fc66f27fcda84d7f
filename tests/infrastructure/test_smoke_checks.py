"""infra/smoke/run.py's pieces: the environment it derives from the template (what a default
deploy sets), the events it sends and what it counts as a failure. `make smoke` runs it whole."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "infra"))  # the infra tools are scripts, not a package
from smoke import run as smoke

TEMPLATE: dict[str, Any] = smoke.read_template(ROOT / "template.yaml")


def _with_defaults(**defaults: str) -> dict[str, Any]:
    template = copy.deepcopy(TEMPLATE)
    for name, value in defaults.items():
        template["Parameters"][name]["Default"] = value
    return template


def test_a_default_deploy_unpacks_the_data_layers_index_into_tmp() -> None:
    env = smoke.template_environment(TEMPLATE)
    assert env["DUOCTHU_DATA_DIR"] == "/tmp/duocthu"
    assert env["DUOCTHU_PACKED_INDEX"] == "/opt/duocthu/index.tar.zst"
    assert (env["QDRANT_URL"], env["CATALOG_S3_URI"], env["RERANK_PROVIDER"]) == ("", "", "off")


def test_the_functions_are_told_the_memory_a_deploy_gives_them() -> None:
    # the memory decides whether a cold start unpacks beside its imports (store.catalog._cpus)
    assert smoke.template_environment(TEMPLATE)["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] == "1024"
    env = smoke.template_environment(_with_defaults(FunctionMemoryMiB="3538"))
    assert env["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] == "3538"


@pytest.mark.parametrize(
    ("defaults", "packed"),
    [
        ({"QdrantUrl": "https://qdrant.example"}, ""),  # a server holds the index: nothing to unpack
        ({"PackedIndexS3Uri": "s3://b/duocthu/v1/index.tar.zst"}, "s3://b/duocthu/v1/index.tar.zst"),
    ],
)
def test_the_index_source_follows_the_parameters(defaults: dict[str, str], packed: str) -> None:
    assert smoke.template_environment(_with_defaults(**defaults))["DUOCTHU_PACKED_INDEX"] == packed


def test_the_events_are_api_gateway_v2_and_direct_invokes() -> None:
    for function in smoke.FUNCTIONS:
        for name, event in smoke.events(function):
            if name == "direct":
                assert "requestContext" not in event
            else:
                assert event["version"] == "2.0" and event["routeKey"] == "$default"
                assert f"{event['requestContext']['http']['method']} {event['rawPath']}" == name


def _http(status: int, body: Any) -> dict[str, Any]:
    return {"statusCode": status, "body": json.dumps(body)}


GOOD_BUNDLE = {"decision": "ANSWERABLE", "evidence": [{"drug_id": "amoxicilin"}]}


def _result(name: str, output: Any = None, error: str | None = None) -> dict[str, Any]:
    return {"name": name, "ms": 1.0, "output": output, "error": error}


def test_working_answers_pass() -> None:
    chat = [
        _result("POST /v1/chat", _http(200, {"bundle": GOOD_BUNDLE, "citations": ["tr. 1"]})),
        _result("GET /health", _http(200, {"status": "ok"})),
        _result("GET /v1/drugs", _http(200, {"drugs": [{"drug_id": "amoxicilin"}]})),
    ]
    assert smoke.problems("chat", chat) == []
    assert smoke.problems("retrieve", [_result("direct", GOOD_BUNDLE)]) == []
    assert (
        smoke.problems("understand", [_result("POST /v1/understand", _http(200, {"drugs": ["amoxicilin"]}))])
        == []
    )
    # a direct invoke (the state machine's Understand) answers the frame and its plan
    understood = {"frame": {"drugs": ["amoxicilin"]}, "plan": {"reply": "sections", "asks": []}}
    assert smoke.problems("understand", [_result("direct", understood)]) == []
    assert smoke.problems("understand", [_result("direct", {"frame": {"drugs": []}, "plan": {}})])


@pytest.mark.parametrize(
    ("function", "result", "expected"),
    [
        ("chat", _result("GET /health", _http(503, {"status": "not_ready"})), "chat GET /health: HTTP 503"),
        (
            "chat",
            _result("POST /v1/chat", _http(200, {"bundle": GOOD_BUNDLE, "citations": []})),
            "chat POST /v1/chat: not ANSWERABLE with its citation",
        ),
        (
            "chat",
            _result("POST /v1/chat", _http(200, {"bundle": {**GOOD_BUNDLE, "decision": "ABSTAIN"}})),
            "chat POST /v1/chat: not ANSWERABLE",
        ),
        ("retrieve", _result("direct", error="DependencyUnavailable: store"), "retrieve direct: raised"),
        ("understand", _result("direct", {"drugs": []}), "understand direct: the frame names no amoxicilin"),
    ],
)
def test_what_a_broken_deployment_answers_fails(function: str, result: dict[str, Any], expected: str) -> None:
    found = smoke.problems(function, [result])
    assert len(found) == 1 and found[0].startswith(expected), found


def _pack(path: Path, drugs: list[dict[str, Any]]) -> Path:
    """A pack with a catalogue (as `duocthu pack` lays it out: the shard first, catalog.json after)."""
    import io
    import tarfile

    from backports.zstd import ZstdFile

    with ZstdFile(path, "w") as raw, tarfile.open(fileobj=raw, mode="w|") as tar:
        for name, data in (
            ("manifest.json", b"{}"),
            ("versions/v1/shard/segment.dat", b"\0" * 64),
            ("versions/v1/catalog.json", json.dumps({"drugs": drugs}).encode()),
        ):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_the_question_and_the_drug_come_from_the_built_pack(tmp_path: Path) -> None:
    book = [
        {"drug_id": "abacavir", "title": "Abacavir", "section_keys": ["chi_dinh"]},  # no contraindications
        {"drug_id": "acid_folic", "title": "Acid folic", "section_keys": ["chong_chi_dinh"]},  # two words
        {"drug_id": "aciclovir", "title": "Aciclovir", "section_keys": ["chong_chi_dinh"]},
    ]
    probe = smoke.pack_probe(_pack(tmp_path / "book.tar.gz", book))
    assert probe == smoke.Probe("aciclovir", "Aciclovir")
    assert probe.question == "Chống chỉ định của Aciclovir là gì?"
    chat = dict(smoke.events("chat", probe))
    assert json.loads(chat["POST /v1/chat"]["body"])["message"] == probe.question
    assert chat["GET /v1/drugs"]["rawQueryString"] == "q=aciclovir"
    assert dict(smoke.events("retrieve", probe))["direct"] == {
        "drug_id": "aciclovir",
        "section_key": "chong_chi_dinh",
    }
    found = smoke.problems("retrieve", [_result("direct", GOOD_BUNDLE)], probe)
    assert found and "not ANSWERABLE from aciclovir" in found[0]
    sample = [*book, {"drug_id": "amoxicilin", "title": "Amoxicilin", "section_keys": ["chong_chi_dinh"]}]
    assert smoke.pack_probe(_pack(tmp_path / "sample.tar.gz", sample)) == smoke.SAMPLE_PROBE


def test_a_checkout_under_tmp_works_outside_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(smoke, "ROOT", Path("/tmp/checkout"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert smoke.work_folder(None) == (tmp_path / "cache" / "duocthu-smoke").resolve()
    monkeypatch.setattr(smoke, "ROOT", Path("/work/checkout"))
    assert smoke.work_folder(None) == Path("/work/checkout/.duocthu/smoke")


def test_the_smoke_environment_names_a_region_for_bedrock() -> None:
    assert smoke.template_environment(TEMPLATE)["BEDROCK_REGION"] == "ap-southeast-1"
