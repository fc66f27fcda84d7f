"""Answer text: the extractive answer, and Bedrock Converse pinned with botocore Stubber."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from duocthu.answer.blocks import SAMPLE_NOTICE
from duocthu.answer.generation import (
    BedrockAnswerGenerator,
    check_citations,
    evidence_notes,
    extractive_answer,
)
from duocthu.models.evidence import EvidenceItem, NamedByClass, RankedDrug, SourceRef
from duocthu.retrieval.decision import decide

MODEL = "apac.anthropic.claude-3-5-sonnet-20241022-v2:0"


def item(
    section: str, part: int, text: str, *, drug: str = "ibuprofen", visual: bool = False
) -> EvidenceItem:
    ref = SourceRef(book="Dược thư", edition="3", section_heading=section, page_start=40, page_end=41)
    return EvidenceItem(
        id=f"{drug}-{section}-{part}",
        drug_id=drug,
        display_name=drug.title(),
        section_key=section,
        part_index=part,
        chunk_kind="prose",
        score=1.0,
        text=text,
        source_refs=(ref,),
        requires_visual_check=visual,
    )


EVIDENCE = [
    item("than_trong", 0, "Thận trọng ở người suy thận."),
    item("chong_chi_dinh", 1, "Loét dạ dày tá tràng tiến triển."),
    item("chong_chi_dinh", 0, "Quá mẫn với ibuprofen."),
]


def test_extractive_answer_groups_in_book_order_with_citations() -> None:
    answer = extractive_answer(decide(EVIDENCE), sample_data=True)
    text = answer.text
    assert text.index("Chống chỉ định") < text.index("Thận trọng")  # book order, not evidence order
    assert text.index("Quá mẫn") < text.index("Loét dạ dày") < text.index("suy thận")
    # each section names its pages in its head; the book is named once, for the whole reply
    assert "【Ibuprofen】 Chống chỉ định (tr. " in text and "【Ibuprofen】 Thận trọng (tr. " in text
    assert text.count("Nguồn:") == 1 and text.count("Dược thư (3)") == 1 and answer.method == "extractive"
    assert text.endswith(SAMPLE_NOTICE)


def test_a_free_form_answer_reads_in_its_ranked_order_contraindications_first() -> None:
    ranked = [
        item("than_trong", 0, "Thận trọng ở người suy thận."),
        item("lieu_luong_va_cach_dung", 0, "Suy thận: giảm liều."),
        item("loai_thuoc", 0, "Thuốc chống viêm không steroid."),
        item("chong_chi_dinh", 0, "Suy thận nặng."),
    ]
    bundle = decide(ranked).model_copy(update={"ordering": "lexical:bm25; no reranker configured"})
    text = extractive_answer(bundle, sample_data=False).text
    headings = ["Chống chỉ định", "Thận trọng", "Liều lượng", "Loại thuốc"]
    assert [text.index(h) for h in headings] == sorted(text.index(h) for h in headings)
    # without a ranked ordering the sections keep book order, the contraindications still first
    plain = extractive_answer(decide(ranked), sample_data=False).text
    assert plain.index("Chống chỉ định") < plain.index("Loại thuốc") < plain.index("Thận trọng")


def test_verify_pdf_answer_says_what_to_check() -> None:
    answer = extractive_answer(
        decide([*EVIDENCE, item("lieu_luong_va_cach_dung", 0, "Bảng", visual=True)]), sample_data=False
    )
    assert "CẦN ĐỐI CHIẾU BẢN IN/PDF" in answer.text and "Bảng [CẦN ĐỐI CHIẾU BẢN IN]" in answer.text


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("Không dùng khi loét dạ dày [2]. Thận trọng khi suy thận [1].", None),
        ("Không dùng khi loét dạ dày [2]. Thận trọng khi suy thận.", "uncited_sentence"),
        ("Không dùng khi loét dạ dày [7].", "unknown_citation_marker"),
        ("", "empty_answer"),
    ],
)
def test_citation_check(text: str, problem: str | None) -> None:
    assert check_citations(text, 3) == problem


@pytest.fixture
def bedrock() -> Iterator[tuple[Any, Stubber]]:
    client = boto3.client(
        "bedrock-runtime", region_name="ap-southeast-1", aws_access_key_id="x", aws_secret_access_key="x"
    )
    with Stubber(client) as stubber:
        yield client, stubber


def converse_response(text: str) -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": [{"text": text}]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 10, "outputTokens": 10, "totalTokens": 20},
        "metrics": {"latencyMs": 100},
    }


def test_grounded_answer_is_used_when_every_sentence_is_cited(bedrock: tuple[Any, Stubber]) -> None:
    client, stubber = bedrock
    generator = BedrockAnswerGenerator(client, MODEL)
    bundle = decide(EVIDENCE)
    stubber.add_response(
        "converse",
        converse_response("Chống chỉ định khi loét dạ dày tá tràng [2]."),
        generator.request("ibuprofen chống chỉ định", bundle.evidence),
    )
    answer = generator.generate("ibuprofen chống chỉ định", bundle, sample_data=False)
    assert answer.method == "bedrock" and answer.fallback_reason is None
    assert "[2]" in answer.text and "Nguồn:" in answer.text
    stubber.assert_no_pending_responses()


def test_the_model_is_told_a_part_names_a_wider_finding(bedrock: tuple[Any, Stubber]) -> None:
    client, stubber = bedrock
    generator = BedrockAnswerGenerator(client, MODEL)
    adr = item("tac_dung_khong_mong_muon", 0, "Ít gặp: loét và xuất huyết tiêu hóa.")
    wider = RankedDrug(
        drug_id="ibuprofen",
        display_name="Ibuprofen",
        score=1.0,
        section_key="tac_dung_khong_mong_muon",
        evidence_ids=(adr.id,),
        wider_finding="loét và xuất huyết tiêu hóa",
    )
    bundle = decide([adr]).model_copy(update={"wider_drugs": (wider,)})
    request = generator.request("thuốc nào gây loét dạ dày", bundle.evidence, evidence_notes(bundle))
    prompt = request["messages"][0]["content"][0]["text"]
    assert "[1] Ibuprofen" in prompt and "ghi “loét và xuất huyết tiêu hóa”, rộng hơn" in prompt
    # the request generate() sends is that one, notes and all (Stubber checks it)
    stubber.add_response("converse", converse_response("Ibuprofen ghi loét tiêu hóa [1]."), request)
    assert generator.generate("thuốc nào gây loét dạ dày", bundle, sample_data=False).method == "bedrock"
    stubber.assert_no_pending_responses()


def test_the_model_is_told_an_interaction_part_names_a_drug_by_its_class() -> None:
    part = item("tuong_tac_thuoc", 0, "Các thuốc chống viêm không steroid làm tăng nguy cơ hạ glucose huyết.")
    named = NamedByClass(evidence_id=part.id, drug_id="ibuprofen", wording="chống viêm không steroid")
    bundle = decide([part]).model_copy(update={"named_by_class": (named,)})
    assert evidence_notes(bundle) == {
        part.id: "đoạn này không nêu tên ibuprofen mà nêu nhóm “chống viêm không steroid” chứa thuốc đó"
    }


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("Dùng được cho mọi người.", "uncited_sentence"),
        ("Chống chỉ định khi loét [9].", "unknown_citation_marker"),
    ],
)
def test_bad_citations_fall_back_to_the_extractive_answer(
    bedrock: tuple[Any, Stubber], reply: str, reason: str
) -> None:
    client, stubber = bedrock
    stubber.add_response("converse", converse_response(reply))
    answer = BedrockAnswerGenerator(client, MODEL).generate("q", decide(EVIDENCE), sample_data=False)
    assert (answer.method, answer.fallback_reason, answer.system_error) == ("extractive", reason, None)
    assert "Quá mẫn với ibuprofen." in answer.text


def test_throttling_falls_back_with_a_system_error(bedrock: tuple[Any, Stubber]) -> None:
    client, stubber = bedrock
    stubber.add_client_error("converse", service_error_code="ThrottlingException", http_status_code=429)
    answer = BedrockAnswerGenerator(client, MODEL).generate("q", decide(EVIDENCE), sample_data=False)
    assert answer.system_error == "generation_provider_unavailable" and answer.method == "extractive"
