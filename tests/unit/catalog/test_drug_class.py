"""A drug's class is the head of its "Loại thuốc" section, read when the catalogue is made."""

from __future__ import annotations

from duocthu.catalog.artifact import Catalog
from duocthu.catalog.drug_class import drug_class
from duocthu.models.source import Monograph


def _record(text: str | None) -> Monograph:
    sections = [
        {
            "key": "chi_dinh",
            "heading": "Chỉ định",
            "pages": {"start": 1, "end": 1},
            "blocks": [{"kind": "prose", "text": "Đau."}],
        }
    ]
    if text is not None:
        sections.insert(
            0,
            {
                "key": "loai_thuoc",
                "heading": "Loại thuốc",
                "pages": {"start": 1, "end": 1},
                "blocks": [{"kind": "prose", "text": text}],
            },
        )
    return Monograph.model_validate({"drug_id": "ibuxen", "title": "Ibuxen", "sections": sections})


def test_the_head_of_the_first_clause_is_the_class() -> None:
    assert drug_class(_record("Thuốc chống viêm không steroid, dẫn chất của acid propionic; giảm đau.")) == (
        "Thuốc chống viêm không steroid"
    )
    assert drug_class(_record("Kháng sinh nhóm beta-lactam, cephalosporin thế hệ 2.")) == "Kháng sinh"
    assert drug_class(_record("Thuốc chống đái tháo đường dùng đường uống, nhóm biguanid.")) == (
        "Thuốc chống đái tháo đường"
    )
    assert drug_class(_record(None)) is None


def test_the_catalogue_carries_it(sample_records: list[Monograph]) -> None:
    classes = {d.drug_id: d.drug_class for d in Catalog.from_records(sample_records, "test").drugs}
    assert classes["ibuprofen"] == classes["diclofenac"] == "Thuốc chống viêm không steroid"
