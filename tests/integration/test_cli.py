"""The README's main job through the real command line: ingest the sample, ask, read the citation."""

from __future__ import annotations

from pathlib import Path

import pytest
from duocthu.cli import main


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli")
    assert main(["ingest", "--quiet", "--data-dir", str(path)]) == 0
    return path


def ask(data_dir: Path, question: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["ask", question, "--data-dir", str(data_dir)]) == 0
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
    assert "Không nhận ra tên thuốc" in out and "Nguồn:" not in out


def test_if_missing_keeps_the_active_index(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = sorted(p.name for p in (data_dir / "versions").iterdir())
    assert main(["ingest", "--if-missing", "--data-dir", str(data_dir)]) == 0
    assert sorted(p.name for p in (data_dir / "versions").iterdir()) == before
