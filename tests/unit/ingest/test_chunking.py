from __future__ import annotations

from duocthu.ingest.chunking import PART_CHAR_BUDGET, chunk_monograph, split_section
from duocthu.models.chunk import point_id
from duocthu.models.source import Block, Monograph


def _normalise(text: str) -> str:
    return " ".join(text.split())


def test_order_kept_nothing_lost_or_duplicated(sample_records: list[Monograph]) -> None:
    for record in sample_records:
        chunks = chunk_monograph(record)
        for section in record.sections:
            parts = [c for c in chunks if c.section_key == section.key]
            assert [c.part_index for c in parts] == list(range(len(parts)))
            joined = _normalise(" ".join(c.text for c in parts))
            assert joined == _normalise(" ".join(b.text for b in section.blocks)), (
                record.drug_id,
                section.key,
            )


def test_parts_respect_the_budget_unless_one_sentence_is_longer() -> None:
    sentence = "Câu thuốc thử nghiệm có độ dài vừa phải để kiểm tra việc chia đoạn. "
    blocks = (Block(kind="prose", text=sentence * 30), Block(kind="prose", text="Đoạn cuối."))
    parts = split_section(blocks)
    assert len(parts) > 2
    assert all(len(text) <= PART_CHAR_BUDGET for text, _ in parts)
    giant = "x" * (PART_CHAR_BUDGET * 2)
    assert split_section((Block(kind="prose", text=giant),)) == [(giant, None)]  # never cut mid-sentence


def test_tables_are_their_own_part_and_carry_their_flags(sample_records: list[Monograph]) -> None:
    paracetamol = next(r for r in sample_records if r.drug_id == "paracetamol")
    dosing = [c for c in chunk_monograph(paracetamol) if c.section_key == "lieu_luong_va_cach_dung"]
    tables = [c for c in dosing if c.chunk_kind == "block"]
    assert tables and all(c.requires_visual_check for c in tables)
    assert all(not c.requires_visual_check for c in dosing if c.chunk_kind == "prose")


def test_quarantine_marks_every_part_of_the_section(sample_records: list[Monograph]) -> None:
    amiodaron = next(r for r in sample_records if r.drug_id == "amiodaron")
    chunks = chunk_monograph(amiodaron)
    assert {c.section_key for c in chunks if c.has_quarantined_content} == {"tuong_tac_thuoc"}


def test_ids_are_deterministic_and_unique(sample_records: list[Monograph]) -> None:
    first = [c.id for r in sample_records for c in chunk_monograph(r)]
    second = [c.id for r in sample_records for c in chunk_monograph(r)]
    assert first == second and len(set(first)) == len(first)
    assert point_id("a", "chi_dinh", 0) != point_id("a", "chi_dinh", 1)


def test_payload_fields() -> None:
    record = Monograph.model_validate(
        {
            "drug_id": "thuoc_a",
            "title": "Thuốc A",
            "atc_codes": ["X01"],
            "sample_data": True,
            "sections": [
                {
                    "key": "chi_dinh",
                    "heading": "Chỉ định",
                    "pages": {"start": 3, "end": 4},
                    "blocks": [{"kind": "prose", "text": "Điều trị đau đầu."}],
                }
            ],
        }
    )
    (chunk,) = chunk_monograph(record)
    payload = chunk.payload()
    assert "text_norm" not in payload  # a server adds its own folded text; Edge reads the parts file
    assert payload["source_refs"] == [
        {
            "book": "Dược thư Quốc gia Việt Nam",
            "edition": "unspecified",
            "section_heading": "Chỉ định",
            "page_start": 3,
            "page_end": 4,
            "sample_data": True,
        }
    ]
    assert payload["atc_codes"] == ["X01"] and payload["display_name"] == "Thuốc A"
