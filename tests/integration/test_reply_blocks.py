"""The structured reply: its text is its blocks' lines, a dose table travels as rows, a patient
case as a status per drug and facet, and the turn's plan decides which composer words it."""

from __future__ import annotations

from duocthu.api.chat_turn import ChatService
from duocthu.models.reply import PatientTableBlock, SectionBlock, TableBlock

from tests.integration.test_chat import offline, service  # noqa: F401 - service is a fixture


def test_the_text_is_the_blocks_lines_and_a_dose_table_is_rows(service: ChatService) -> None:  # noqa: F811
    turn = service.turn("paracetamol cho trẻ 12 kg liều bao nhiêu?")
    assert turn.reply is not None
    assert turn.answer == "\n".join(line for b in turn.reply.blocks for line in b.lines).strip()
    tables = [b for b in turn.reply.blocks if isinstance(b, TableBlock)]
    assert len(tables) == 1 and tables[0].header == ("Cân nặng", "Liều mỗi lần")
    assert ("11 – 15 kg", "160 mg") in tables[0].rows and tables[0].needs_visual_check
    assert tables[0].citation.section_key == "lieu_luong_va_cach_dung"
    kinds = [b.type for b in turn.reply.blocks]
    assert kinds.index("answer_lines") < kinds.index("section")  # the answering lines come first
    assert turn.reply.source is not None and turn.reply.source.sample_data


def test_a_patient_case_carries_a_status_per_drug_and_facet(service: ChatService) -> None:  # noqa: F811
    turn = service.turn("Bệnh nhân suy thận, đang dùng warfarin, bị đau khớp, dùng thuốc gì giảm đau?")
    assert turn.reply is not None
    tables = [b for b in turn.reply.blocks if isinstance(b, PatientTableBlock)]
    assert len(tables) == 1 and tables[0].rows
    for row in tables[0].rows:
        assert row.status in ("SUPPORTED", "CAUTION", "CONTRAINDICATED", "INSUFFICIENT_EVIDENCE")
        assert row.facets and all(cell.word for cell in row.facets)
    assert {row.drug_id for row in tables[0].rows} == {c.drug_id for c in turn.bundle.candidate_statuses}


def test_a_section_block_names_its_drug_section_and_pages_once(service: ChatService) -> None:  # noqa: F811
    turn = service.turn("Chống chỉ định của ibuprofen?")
    assert turn.reply is not None
    sections = [b for b in turn.reply.blocks if isinstance(b, SectionBlock)]
    assert [(s.drug_id, s.citation.section_key) for s in sections] == [("ibuprofen", "chong_chi_dinh")]
    assert sections[0].paragraphs and sections[0].citation.page_start <= sections[0].citation.page_end
