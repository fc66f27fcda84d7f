"""The README's main job through the real command line: ingest the sample, ask, read the citation."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from duocthu.store.base import StoreUnavailable
from duocthu.store.edge import EdgeStore
from duocthu.tools.cli import main

from tests.conftest import SAMPLE_TSV, kit_rows


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli")
    assert main(["ingest", "--quiet", "--data-dir", str(path)]) == 0
    return path


def ask(data_dir: Path, question: str, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    assert main(["ask", question, "--data-dir", str(data_dir), *extra]) == 0
    return capsys.readouterr().out


def test_ask_prints_the_cited_section(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = ask(data_dir, "Chống chỉ định của amoxicilin là gì?", capsys)
    assert "【Amoxicilin】 Chống chỉ định" in out
    assert "Nguồn:" in out and "tr. 16" in out
    assert "DỮ LIỆU MẪU" in out


def test_ask_surfaces_visual_check(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = ask(data_dir, "Liều paracetamol cho trẻ em?", capsys)
    assert "ĐỐI CHIẾU" in out and "Liều lượng và cách dùng" in out


def test_ask_abstains_on_unknown_drug(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = ask(data_dir, "Chống chỉ định của aspirinol?", capsys)
    assert "Không tìm thấy “aspirinol”" in out and "Nguồn:" not in out
    # a real drug (the ATC table's) is said to have no monograph here, never "not found"
    real = ask(data_dir, "Chống chỉ định của pantoprazol?", capsys)
    assert "“pantoprazol” không có chuyên luận riêng trong Dược thư này" in real
    assert "Không tìm thấy" not in real


def test_ask_prints_the_replies_a_clarifying_question_offers(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ask(data_dir, "Chống chỉ định của amoxicilinn?", capsys)
    assert "Ý bạn là" in out and "  → " in out and "Amoxicilin" in out.split("  → ", 1)[1]


def test_if_missing_keeps_the_active_index(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = sorted(p.name for p in (data_dir / "versions").iterdir())
    assert main(["ingest", "--if-missing", "--data-dir", str(data_dir)]) == 0
    assert sorted(p.name for p in (data_dir / "versions").iterdir()) == before


def test_ask_answers_for_every_sample_drug(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # issue 3: `make ask` answers for any of the 40 drugs, by its title
    for row in kit_rows(SAMPLE_TSV):
        out = ask(data_dir, f"Chỉ định của {row['title']} là gì?", capsys)
        assert f"【{row['title']}】 Chỉ định" in out, row["drug_id"]


def test_ask_json_and_session_continuation(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = json.loads(ask(data_dir, "Chống chỉ định của warfarin?", capsys, "--json"))
    assert first["decision"] == "ANSWERABLE" and first["frame"]["drugs"] == ["warfarin"]
    second = json.loads(
        ask(data_dir, "còn thời kỳ mang thai thì sao?", capsys, "--json", "--session", first["session_id"])
    )
    assert second["session_id"] == first["session_id"]
    assert second["frame"]["drugs"] == ["warfarin"] and second["frame"]["attribute"] == "thoi_ky_mang_thai"


@pytest.mark.parametrize("session_id", ["A" * 22, "made-up"])
def test_ask_refuses_a_session_it_did_not_issue(
    data_dir: Path, capsys: pytest.CaptureFixture[str], session_id: str
) -> None:
    # as POST /v1/chat's 404: a made-up or expired id never becomes a new conversation in silence
    assert main(["ask", "còn liều dùng?", "--data-dir", str(data_dir), "--session", session_id]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and f"session not found: {session_id}" in captured.err


def test_batch_answers_each_line_in_order(
    data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [
        {"id": "a", "message": "Chống chỉ định của ibuprofen?"},
        "not json",
        {
            "id": 3,
            "message": "còn thận trọng?",
            "history": [{"role": "user", "content": "Chống chỉ định của metformin?"}],
        },
        {"id": 4, "message": ""},
    ]
    stdin = "\n".join(
        line if isinstance(line, str) else json.dumps(line, ensure_ascii=False) for line in lines
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin + "\n"))
    assert main(["batch", "--data-dir", str(data_dir)]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [o["id"] for o in out] == ["a", None, 3, None]
    assert out[0]["decision"] == "ANSWERABLE" and out[0]["evidence"][0]["section_key"] == "chong_chi_dinh"
    assert set(out[0]["frame"]) >= {"turn_type", "drugs", "attribute", "patient_context", "system_error"}
    assert out[1]["error"] == out[3]["error"] == "invalid_input"
    assert out[2]["frame"]["drugs"] == ["metformin"] and out[2]["frame"]["attribute"] == "than_trong"
    assert all("elapsed_ms" in o for o in out)


def test_if_stale_rebuilds_only_an_outdated_sample_index(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert main(["ingest", "--quiet", "--if-stale", "--data-dir", str(data)]) == 0  # no index: builds
    first = sorted(p.name for p in (data / "versions").iterdir())
    assert main(["ingest", "--quiet", "--if-stale", "--data-dir", str(data)]) == 0  # current: nothing
    assert sorted(p.name for p in (data / "versions").iterdir()) == first
    manifest = data / "manifest.json"
    outdated = json.loads(manifest.read_text())
    outdated["corpus_hash"] = "0" * 64  # as if built from an older sample
    manifest.write_text(json.dumps(outdated))
    assert main(["ingest", "--quiet", "--if-stale", "--data-dir", str(data)]) == 0
    assert json.loads(manifest.read_text())["source"] == "sample"
    assert json.loads(manifest.read_text())["corpus_hash"] != "0" * 64
    other = dict(json.loads(manifest.read_text()), source="/srv/formulary", corpus_hash="1" * 64)
    manifest.write_text(json.dumps(other))  # another source's index is never replaced by the sample
    assert main(["ingest", "--quiet", "--if-stale", "--data-dir", str(data)]) == 0
    assert json.loads(manifest.read_text())["source"] == "/srv/formulary"


def test_an_index_of_an_older_layout_is_rebuilt_or_refused_with_the_fix(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert main(["ingest", "--quiet", "--if-stale", "--data-dir", str(data)]) == 0
    manifest = data / "manifest.json"
    older = dict(json.loads(manifest.read_text()), layout=1)  # built by code before sentence points
    manifest.write_text(json.dumps(older))
    assert main(["ingest", "--quiet", "--if-stale", "--data-dir", str(data)]) == 0  # the sample: rebuilt
    assert json.loads(manifest.read_text())["layout"] != 1
    manifest.write_text(json.dumps(dict(older, source="/srv/formulary")))  # another source: refused
    with pytest.raises(StoreUnavailable, match="duocthu ingest"):
        EdgeStore(data).probe()
