from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from duocthu.ingest.source import SourceError, corpus_hash, load_source, parse_records
from duocthu.models.source import slugify


def record(drug_id: str = "thuoc_a") -> dict[str, Any]:
    return {
        "drug_id": drug_id,
        "title": "Thuốc A",
        "aliases": ["Biệt dược A"],
        "sections": [
            {
                "key": "chi_dinh",
                "heading": "Chỉ định",
                "pages": {"start": 1, "end": 1},
                "blocks": [{"kind": "prose", "text": "Đau đầu."}],
            },
            {
                "key": "chong_chi_dinh",
                "heading": "Chống chỉ định",
                "pages": {"start": 1, "end": 2},
                "blocks": [{"kind": "prose", "text": "Quá mẫn."}],
            },
        ],
    }


def test_slugify() -> None:
    assert slugify("Acid acetylsalicylic") == "acid_acetylsalicylic"
    assert slugify("Đồng sulfat") == "dong_sulfat"


def test_valid_record_parses() -> None:
    (parsed,) = parse_records([("a", record())])
    assert parsed.section("chong_chi_dinh") is not None and parsed.section("tuong_ky") is None


def _broken(change: str) -> dict[str, Any]:
    bad = copy.deepcopy(record())
    if change == "unknown section key":
        bad["sections"][0]["key"] = "cong_dung"
    elif change == "duplicate section":
        bad["sections"][1]["key"] = "chi_dinh"
    elif change == "empty drug_id":
        bad["drug_id"] = ""
    elif change == "empty text":
        bad["sections"][1]["blocks"][0]["text"] = "   "
    return bad


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("unknown section key", "unknown section key 'cong_dung'"),
        ("duplicate section", "duplicate section key(s): chi_dinh"),
        ("empty drug_id", "drug_id"),
        ("empty text", "sections.1.blocks.0.text"),
    ],
)
def test_bad_records_are_named(change: str, message: str) -> None:
    with pytest.raises(SourceError) as err:
        parse_records([("ok.json", record("thuoc_b")), ("bad.json", _broken(change))])
    assert message in str(err.value)
    assert "bad.json" in str(err.value)
    assert "ok.json" not in str(err.value)


def test_duplicate_drug_id_is_named() -> None:
    with pytest.raises(SourceError, match="thuoc_a: drug_id: duplicate"):
        parse_records([("1", record()), ("2", record())])


def test_folder_and_jsonl_sources_hash_the_same(tmp_path: Path) -> None:
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "thuoc_a.json").write_text(json.dumps(record(), ensure_ascii=False), encoding="utf-8")
    (folder / "thuoc_b.json").write_text(json.dumps(record("thuoc_b"), ensure_ascii=False), encoding="utf-8")
    lines = tmp_path / "src.jsonl"
    lines.write_text("\n".join(json.dumps(record(d), ensure_ascii=False) for d in ("thuoc_b", "thuoc_a")))
    assert corpus_hash(load_source(folder)) == corpus_hash(load_source(lines))
