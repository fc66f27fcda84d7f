"""One chat turn end to end on the sample index, route by route."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from duocthu.answer.generation import ExtractiveGenerator
from duocthu.api.chat_turn import ChatService
from duocthu.api.services.chat import chat_response
from duocthu.catalog.artifact import Catalog
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline
from duocthu.core.vocabulary import SubjectScope
from duocthu.models.frame import QueryFrame
from duocthu.retrieval.service import RetrievalService
from duocthu.settings import Settings
from duocthu.store import StoreUnavailable
from duocthu.store.edge import EdgeStore
from duocthu.store.sessions import ConversationState, ConversationUnavailable, FileConversationStore
from duocthu.understanding import pipeline as understanding
from duocthu.understanding.rules.provider import OfflineFrameProvider
from duocthu.understanding.tags import MessageReader


def offline(resolver: CatalogDrugResolver) -> Any:
    def understand(
        message: str,
        history: Sequence[str],
        prior: QueryFrame | None,
        scope: SubjectScope,
        reader: MessageReader,
    ) -> QueryFrame:
        return (
            understanding.understand_read(
                message,
                reader,
                OfflineFrameProvider(),
                Deadline.after(understanding.OFFLINE_BUDGET_S),
                history,
                prior,
            )
            if scope == "human"
            else (understanding.non_human_frame(message))
        )

    return understand


@pytest.fixture
def service(sample_index: tuple[EdgeStore, Catalog, Settings], tmp_path: Path) -> ChatService:
    store, catalog, _ = sample_index
    resolver = CatalogDrugResolver(catalog)
    return ChatService(
        catalog,
        resolver,
        RetrievalService(store),
        offline(resolver),
        ExtractiveGenerator(),
        FileConversationStore(tmp_path / "sessions"),
    )


def test_drug_attribute_answers_the_whole_section_with_citations(service: ChatService) -> None:
    turn = service.turn("Chống chỉ định của ibuprofen?")
    assert (turn.decision, turn.reason) == ("ANSWERABLE", "grounded_evidence_available")
    assert {e.section_key for e in turn.bundle.evidence} == {"chong_chi_dinh"}
    assert "loét dạ dày" in turn.answer and turn.citations and "DỮ LIỆU MẪU" in turn.answer


def test_overview_is_intro_sections_only(service: ChatService) -> None:
    turn = service.turn("omeprazol")
    assert turn.frame is not None and turn.frame.turn_type == "drug_overview"
    assert {e.section_key for e in turn.bundle.evidence} <= {
        "ten_chung_quoc_te",
        "loai_thuoc",
        "chi_dinh",
        "duoc_ly_va_co_che_tac_dung",
    }


def test_dosing_quotes_the_formulary_and_does_no_arithmetic(service: ChatService) -> None:
    turn = service.turn("paracetamol cho trẻ 12 kg liều bao nhiêu?")
    assert turn.decision == "VERIFY_PDF"  # the weight table must be checked against the page
    assert "không tự tính liều" in turn.answer and "12 kg" in turn.answer
    # the answering lines first, how the question was read after them
    assert turn.answer.index("“11 – 15 kg | 160 mg”") < turn.answer.index("không tự tính liều")
    assert {e.section_key for e in turn.bundle.evidence} == {"lieu_luong_va_cach_dung"}
    assert "180 mg" not in turn.answer.split("Nguồn:")[0]  # nothing computed before the quoted text


def test_quarantined_section_surfaces_verify_pdf(service: ChatService) -> None:
    turn = service.turn("Tương tác thuốc của amiodaron?")
    assert turn.decision == "VERIFY_PDF" and "CẦN ĐỐI CHIẾU" in turn.answer


@pytest.mark.parametrize(
    ("message", "reason", "phrase"),
    [
        ("xin chào", "smalltalk", "Xin chào"),
        ("Thuốc trị ghẻ cho chó là gì?", "non_human_subject", "cho người"),
        ("Chống chỉ định của aspirinol?", "unknown_drug", "Không tìm thấy"),
    ],
)
def test_fixed_replies(service: ChatService, message: str, reason: str, phrase: str) -> None:
    turn = service.turn(message)
    assert (turn.decision, turn.reason) == ("ABSTAIN", reason) and phrase in turn.answer
    assert not turn.citations


def test_clarify_offers_quick_replies(service: ChatService) -> None:
    turn = service.turn("Liều amoxicilline cho người lớn?")
    assert turn.reason == "needs_clarification" and "Amoxicilin" in " ".join(turn.quick_replies)


def test_continuation_and_topic_change_share_a_session(service: ChatService) -> None:
    first = service.turn("Chống chỉ định của metformin?")
    follow = service.turn("còn thận trọng thì sao?", session_id=first.session_id)
    assert follow.frame is not None and follow.frame.drugs == ("metformin",)
    assert {e.section_key for e in follow.bundle.evidence} >= {"than_trong"}
    change = service.turn("Chỉ định của losartan?", session_id=first.session_id)
    assert change.frame is not None and change.frame.drugs == ("losartan",)


def test_understanding_failure_abstains_with_its_system_error(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, catalog, _ = sample_index

    def down(*_: Any) -> QueryFrame:
        return understanding.failed_frame("understanding_provider_unavailable")

    turn = ChatService(
        catalog, CatalogDrugResolver(catalog), RetrievalService(store), down, ExtractiveGenerator()
    ).turn("Chỉ định của warfarin?")
    assert (turn.decision, turn.reason, turn.system_error) == (
        "ABSTAIN",
        "dependency_unavailable",
        "understanding_provider_unavailable",
    )
    assert "không phải là câu trả lời về thuốc" in turn.answer


def test_store_failure_abstains_and_never_implies_safety(
    sample_index: tuple[EdgeStore, Catalog, Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, catalog, _ = sample_index
    resolver = CatalogDrugResolver(catalog)
    service = ChatService(
        catalog, resolver, RetrievalService(store), offline(resolver), ExtractiveGenerator()
    )

    def broken(*_: Any, **__: Any) -> Any:
        raise StoreUnavailable("down")

    monkeypatch.setattr(store, "find_by_section", broken)
    turn = service.turn("Chống chỉ định của warfarin?")
    assert (turn.reason, turn.system_error) == ("dependency_unavailable", "store_unavailable")


class _BrokenSessions:
    backend = "broken"

    def load(self, session_id: str) -> ConversationState | None:
        raise ConversationUnavailable("dynamodb down")

    def save(self, state: ConversationState) -> None:
        raise ConversationUnavailable("dynamodb down")


def test_conversation_store_failure_degrades_to_stateless(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, catalog, _ = sample_index
    resolver = CatalogDrugResolver(catalog)
    service = ChatService(
        catalog,
        resolver,
        RetrievalService(store),
        offline(resolver),
        ExtractiveGenerator(),
        _BrokenSessions(),
    )
    turn = service.turn("Chỉ định của captopril?", session_id="abc")
    assert turn.decision == "ANSWERABLE" and turn.system_error == "conversation_store_unavailable"
    assert turn.session_id == "abc"


def test_interaction_pools_both_monographs(service: ChatService) -> None:
    turn = service.turn("Warfarin dùng chung với aspirin được không?")
    assert turn.frame is not None and turn.frame.turn_type == "interaction"
    # and aspirin's contraindications, which forbid it beside warfarin's class
    assert {(e.drug_id, e.section_key) for e in turn.bundle.evidence} == {
        ("warfarin", "tuong_tac_thuoc"),
        ("acid_acetylsalicylic", "tuong_tac_thuoc"),
        ("acid_acetylsalicylic", "chong_chi_dinh"),
    }


def test_a_drug_the_formulary_lacks_is_never_answered_for_by_the_other(service: ChatService) -> None:
    # one catalogue drug and one the formulary lacks: what the known section says of the other
    # name, or that it says nothing, never the whole section as if it answered
    absent = service.turn("Paracetamol và tramadol có tương tác không?")
    assert absent.decision == "ABSTAIN" and "“tramadol”" in absent.answer
    assert "KHÔNG có nghĩa là không có tương tác" in absent.answer
    named = service.turn("Warfarin với rifampicin có tương tác không?")
    # (beside warfarin's rule for any medicine taken with it, which holds for this one too)
    assert named.decision == "ANSWERABLE"
    assert all("rifampicin" in e.text or "thuốc dùng kèm" in e.text for e in named.bundle.evidence)
    # a real drug (the ATC table) the formulary has no monograph for, quoted where warfarin names
    # it: the line naming it leads, the note on how the name was read follows
    lead, note = named.answer.splitlines()[1], named.answer.index("“rifampicin” không có chuyên luận riêng")
    assert "rifampicin" in lead and named.answer.index(lead) < note
    # beside a name no list holds, each is said on its own terms: the real drug is never "not found"
    both = service.turn("Warfarin với rifampicin và Zyxolen có tương tác không?").answer
    assert "“rifampicin” không có chuyên luận riêng" in both and "không tìm thấy “Zyxolen”" in both
    # another question: the answer says which drug it covers and which it does not
    for message in ("Liều dùng của paracetamol và codein?", "Hapacol codein dùng cho trẻ em được không?"):
        first = service.turn(message).answer.splitlines()[0]
        assert "chỉ nói về Paracetamol, không nói gì về “codein”" in first, message


def test_quarantined_interaction_is_verify_pdf_not_dropped(service: ChatService) -> None:
    turn = service.turn("Digoxin tương tác với amiodaron không?")
    assert turn.decision == "VERIFY_PDF" and "amiodaron" in {e.drug_id for e in turn.bundle.evidence}


@pytest.mark.parametrize(
    "message",
    [
        "metformin có dùng được cho người suy thận không",
        "Người suy thận dùng metformin được không?",
        "Người suy thận có được chỉ định metformin không?",  # "chỉ định" as a verb: a decision
        # "bé" is "trẻ em" in the formulary's words: the contraindication for under-2s is read
        "Bé 2 tuổi bị tiêu chảy có dùng loperamid được không?",
    ],
)
def test_may_this_patient_take_it_reads_the_contraindications(service: ChatService, message: str) -> None:
    # Whether a described patient may take a drug is never answered from thận trọng alone: a
    # contraindication left out would read as "allowed with care".
    turn = service.turn(message)
    sections = {e.section_key for e in turn.bundle.evidence}
    assert "chong_chi_dinh" in sections and turn.decision == "ANSWERABLE"


def test_a_combination_the_sections_bar_leads_what_the_patients_state_reads(service: ChatService) -> None:
    barred = service.turn("Cụ 80 tuổi đang dùng amiodaron, định cho domperidon có được không?").answer
    assert barred.index("Chống chỉ định phối hợp") < barred.index("Người cao tuổi")
    allowed = service.turn("Người 70 tuổi đang uống omeprazol, cho thêm domperidon được không?").answer
    assert allowed.index("Người cao tuổi") < allowed.index("Domperidon – Omeprazol")


def test_a_drug_barred_in_pregnancy_is_followed_by_the_one_the_book_prefers_for_its_use(
    service: ChatService,
) -> None:
    turn = service.turn("Thai phụ 33 tuần đau đầu, uống Brufen được không?")
    assert "Dược thư ghi không dùng Ibuprofen" in turn.answer
    offered = [(a.source_drug_id, a.drug_id) for a in turn.bundle.named_alternatives]
    assert offered == [("paracetamol", "paracetamol")]
    assert "được ưu tiên trong trường hợp này: Paracetamol" in turn.answer
    # the ibuprofen pregnancy section is still the one the bar cites, not paracetamol's
    assert "mục “Thời kỳ mang thai”, tr. 130" in turn.answer
    # no drug preferred for another use: nothing the book prefers lowers blood pressure
    ace = service.turn("Có thai 5 tháng, đang uống captopril được không?")
    assert "Dược thư ghi không dùng Captopril" in ace.answer and not ace.bundle.named_alternatives


def test_a_medicine_the_patient_takes_is_checked_against_each_candidate(service: ChatService) -> None:
    turn = service.turn("Tôi đang uống warfarin, bị đau đầu thì nên dùng thuốc gì?")
    assert turn.frame is not None and (turn.frame.turn_type, turn.frame.drugs) == ("symptom_to_drug", ())
    assert "paracetamol" in {d.drug_id for d in turn.bundle.ranked_drugs}
    interaction_parts = [e for e in turn.bundle.evidence if e.section_key == "tuong_tac_thuoc"]
    assert interaction_parts and all("warfarin" in e.text.lower() for e in interaction_parts)


def test_a_medicines_class_named_only_as_a_past_reactions_cause_is_no_contraindication(
    service: ChatService,
) -> None:
    # losartan's "tiền sử phù mạch khi dùng … thuốc ức chế enzym chuyển …; … khi đang dùng losartan …":
    # the word of taking together stands in another clause than the class of the medicine taken
    turn = service.turn(
        "Anh 61t THA, dùng Renitec 10mg, ho khan dai dẳng. Trong danh mục có thuốc nào thay được ko?"
    )
    statuses = {(c.drug_id, f.facet): f.status for c in turn.bundle.candidate_statuses for f in c.facets}
    assert statuses[("losartan", "interaction")] == "CAUTION"


def test_condition_to_drug_lists_drugs_from_their_indications(service: ChatService) -> None:
    turn = service.turn("Thuốc nào dùng cho tăng huyết áp?")
    ranked = {d.drug_id for d in turn.bundle.ranked_drugs}
    assert {"amlodipin", "losartan"} <= ranked
    assert {e.section_key for e in turn.bundle.evidence} == {"chi_dinh"}
    assert "không phải khuyến cáo" in turn.answer


def test_a_which_drug_answer_quotes_the_line_naming_the_condition_never_whole_sections(
    service: ChatService,
) -> None:
    turn = service.turn("Thuốc nào điều trị tăng huyết áp?")
    ranked = [d.drug_id for d in turn.bundle.ranked_drugs]
    # resistant hypertension and "usually combined" come after every drug whose chỉ định is for it
    assert set(ranked[-2:]) == {"spironolacton", "furosemid"}
    assert "- Spironolacton – Chỉ định – tr. 379 (nêu như lựa chọn" in turn.answer
    assert "“Tăng huyết áp kháng trị, khi huyết áp chưa kiểm soát được" in turn.answer
    # each section stays the evidence, a quick reply away, never pasted
    parts = [e.text for e in turn.bundle.evidence if e.drug_id == "captopril"]
    assert parts and not any(part in turn.answer for part in parts) and turn.citations
    assert "Chỉ định của Captopril" in turn.quick_replies
    assert len(turn.answer) <= 3000 and "không phải khuyến cáo" in turn.answer


def test_condition_relation_reads_the_relation_section_never_the_indication(service: ChatService) -> None:
    turn = service.turn("Thuốc nào gây ho khan?")
    assert turn.frame is not None and turn.frame.condition_relation == "adverse_effect"
    # the ADR list, then Thận trọng and Dược lý where they state it as the drug's effect; never chỉ định
    sections = {e.section_key for e in turn.bundle.evidence}
    assert "tac_dung_khong_mong_muon" in sections
    assert sections <= {"tac_dung_khong_mong_muon", "than_trong", "duoc_ly_va_co_che_tac_dung"}
    found = {d.drug_id: d.section_key for d in turn.bundle.ranked_drugs}
    assert found["enalapril"] == found["captopril"] == "tac_dung_khong_mong_muon"
    assert found["methotrexat"] == "than_trong"  # "… có thể xuất hiện … với ho khan"
    assert "losartan" not in found  # its Dược lý: "tỷ lệ ho khan thấp hơn"


def test_an_allergy_to_a_candidate_flags_its_contraindication(service: ChatService) -> None:
    # "aspirin" as the patient writes it; "acid acetylsalicylic" as the monographs do
    turn = service.turn("Tôi bị dị ứng với aspirin, đau đầu uống gì?")
    statuses = {s.drug_id: s.status for s in turn.bundle.candidate_statuses}
    assert statuses["acid_acetylsalicylic"] == "CONTRAINDICATED"
    assert statuses["ibuprofen"] == "CONTRAINDICATED"  # "… sau khi dùng acid acetylsalicylic"


def test_which_drugs_need_a_dose_change_is_never_answered_with_indications(service: ChatService) -> None:
    # No section lists drugs by dose adjustment; the drugs that treat renal failure are wrong here.
    turn = service.turn("Những thuốc nào cần chỉnh liều ở người suy thận?")
    assert turn.frame is not None and turn.frame.condition_relation == "unknown"
    assert (turn.decision, turn.bundle.ranked_drugs) == ("ABSTAIN", ())
    assert "Hãy hỏi về một thuốc cụ thể" in turn.answer
    # the example is about this patient, with a slot for the drug: no drug is suggested
    assert "“[tên thuốc] dùng cho người suy thận được không?”" in turn.answer
    allergy = service.turn("Thuốc nào dùng được cho người dị ứng penicilin?")
    assert allergy.decision == "ABSTAIN" and "“[tên thuốc] dùng cho người dị ứng penicilin" in allergy.answer


def test_a_past_reaction_to_a_candidate_flags_its_contraindication(service: ChatService) -> None:
    turn = service.turn("Tôi từng bị phù mặt khi uống aspirin, nay đau răng thì uống thuốc giảm đau nào?")
    statuses = {s.drug_id: s.status for s in turn.bundle.candidate_statuses}
    assert statuses["acid_acetylsalicylic"] == "CONTRAINDICATED"
    assert "phản ứng có hại đã gặp: phù mặt (aspirin)" in turn.answer


def test_a_class_in_a_relation_question_is_said_to_be_unfiltered(service: ChatService) -> None:
    # The list comes from section text, never from the class: it must not read as "only these".
    turn = service.turn("Người suy thận không nên dùng thuốc giảm đau nào?")
    assert turn.bundle.ranked_drugs and "không lọc theo nhóm “thuốc giảm đau”" in turn.answer
    # said after the drugs and their lines, as how the list was found is: the lines lead
    first = turn.bundle.ranked_drugs[0].display_name
    assert turn.answer.index(f"- {first}") < turn.answer.index("không lọc theo nhóm")
    assert "không lọc theo nhóm" not in service.turn("Thuốc nào gây ho khan?").answer


def test_a_lay_word_finds_the_formularys_word(service: ChatService) -> None:
    # users write "máu", "men gan"; the formulary writes "huyết", "transaminase"
    hyperkalaemia = service.turn("Thuốc nào gây tăng kali máu?")
    everyone = {d.drug_id for d in (*hyperkalaemia.bundle.ranked_drugs, *hyperkalaemia.bundle.unlisted_drugs)}
    assert {"spironolacton", "captopril", "enalapril", "losartan"} <= everyone
    hyponatraemia = service.turn("Thuốc nào gây hạ natri máu?")
    assert hyponatraemia.frame is not None and not hyponatraemia.frame.unknown_drugs  # "natri" is no product
    assert hyponatraemia.bundle.decision == "ANSWERABLE"
    candida = service.turn("Thuốc nào trị nấm Candida?")
    assert candida.frame is not None and candida.frame.turn_type == "condition_to_drug"
    assert "fluconazol" in {d.drug_id for d in candida.bundle.ranked_drugs}


def test_which_drugs_a_population_must_avoid_names_every_one(service: ChatService) -> None:
    turn = service.turn("Thuốc nào không được dùng cho phụ nữ có thai?")
    assert turn.frame is not None and turn.frame.condition_relation == "contraindication"
    # chống chỉ định, and the pregnancy section where it seconds a drug listed there
    assert {e.section_key for e in turn.bundle.evidence} == {"chong_chi_dinh", "thoi_ky_mang_thai"}
    everyone = {d.drug_id for d in (*turn.bundle.ranked_drugs, *turn.bundle.unlisted_drugs)}
    assert {"losartan", "enalapril", "captopril"} <= everyone  # "3 tháng giữa và 3 tháng cuối của thai kỳ"
    # more than a screen's worth: grouped by class with counts, every drug in the list block
    assert turn.bundle.unlisted_drugs and "theo nhóm ở mục “Loại thuốc”" in turn.answer
    assert turn.reply is not None
    listed = {d.drug_id for b in turn.reply.blocks if b.type == "drug_list" for d in b.drugs}
    assert everyone <= listed
    # the response (and the state machine's state) names each drug once: in the block, not again
    # among the bundle's unshown drugs
    response = chat_response(turn)
    assert response.bundle.unlisted_drugs == () and response.bundle.ranked_drugs == turn.bundle.ranked_drugs
    # chống chỉ định silent, "Thời kỳ mang thai" says "không nên dùng": still named, under its section
    by_section = {d.drug_id: d.section_key for d in (*turn.bundle.ranked_drugs, *turn.bundle.unlisted_drugs)}
    assert by_section["clopidogrel"] == by_section["loperamid"] == "thoi_ky_mang_thai"
    assert by_section["warfarin"] == "chong_chi_dinh"
    assert "Mục “Thời kỳ mang thai” của" in turn.answer and "đọc nguyên văn" in turn.answer


def test_a_which_drugs_list_never_reads_as_complete(service: ChatService) -> None:
    # found by the formulary's wording: ibuprofen's "loét và xuất huyết tiêu hóa" is not "loét dạ
    # dày", so the answer says a drug may be missing and where to look
    turn = service.turn("Thuốc giảm đau có gây loét dạ dày không?")
    assert turn.frame is not None and turn.frame.condition_relation == "adverse_effect"
    assert turn.bundle.ranked_drugs and "thuốc nào ghi bằng từ khác có thể không có ở đây" in turn.answer


def test_a_drug_that_names_pain_only_in_angina_is_no_analgesic(service: ChatService) -> None:
    turn = service.turn("Giảm đau bằng thuốc gì?")
    assert "amlodipin" in {d.drug_id for d in turn.bundle.incidental_drugs}
    assert "amlodipin" not in {d.drug_id for d in turn.bundle.ranked_drugs}
    line = next(line for line in turn.answer.splitlines() if "trong tên một bệnh khác" in line)
    assert "Amlodipin" in line


def test_a_drug_that_only_rarely_causes_a_finding_is_never_a_drug_for_it(service: ChatService) -> None:
    # metformin's chỉ định: "ít gây hạ glucose huyết"; gliclazid's: "nguy cơ hạ glucose huyết"
    turn = service.turn("Thuốc nào trị hạ đường huyết?")
    assert turn.bundle.ranked_drugs == () and turn.bundle.unlisted_drugs == ()
    assert {"metformin", "gliclazid"} <= {d.drug_id for d in turn.bundle.incidental_drugs}
    first = turn.answer.splitlines()[0]
    assert first.startswith("Không thuốc nào") and "như bệnh được điều trị" in first


@pytest.mark.parametrize(
    ("question", "first_line"),
    [
        ("Omeprazol có trị loét dạ dày không?", "Mục “Chỉ định” của Omeprazol có nêu “loét dạ dày”"),
        # "ít gây hạ glucose huyết": what metformin rarely causes, never what it treats
        (
            "Metformin có trị hạ đường huyết không?",
            "Mục “Chỉ định” của Metformin chỉ nêu “hạ đường huyết” trong",
        ),
        # "không có hiệu quả điều trị quá trình viêm trong viêm khớp dạng thấp"
        ("Paracetamol có trị viêm khớp dạng thấp không?", "Mục “Chỉ định” của Paracetamol có nhắc đến"),
        ("Amoxicilin có trị sốt không?", "Không tìm thấy “sốt” trong mục “Chỉ định” của Amoxicilin"),
        # the ADR section of a named drug, asked with a finding
        (
            "Captopril có gây ho khan không?",
            "Mục “Tác dụng không mong muốn (ADR)” của Captopril nêu “ho khan”:",
        ),
        (
            "Ibuprofen có gây loét dạ dày không?",
            "Mục “Tác dụng không mong muốn (ADR)” của Ibuprofen không nêu đúng “loét dạ dày” mà ghi “loét và",
        ),
        # the words after the finding narrow it for a named drug too: "chảy máu cam", not any bleeding
        (
            "Aspirin có gây chảy máu cam không?",
            "Mục “Tác dụng không mong muốn (ADR)” của Acid acetylsalicylic nêu “chảy máu cam”:",
        ),
        # "hầu như không gây kích ứng dạ dày"
        (
            "Paracetamol có gây kích ứng dạ dày không?",
            "Mục “Tác dụng không mong muốn (ADR)” của Paracetamol có nhắc",
        ),
    ],
)
def test_does_x_treat_or_cause_y_opens_with_how_its_section_names_y(
    service: ChatService, question: str, first_line: str
) -> None:
    turn = service.turn(question)
    assert turn.frame is not None and turn.frame.turn_type in ("drug_to_condition", "drug_attribute")
    # a "gây" question not stated as the drug's effect opens with the sections read (answer.lines)
    lead = turn.answer.splitlines()[: 1 if turn.frame.turn_type == "drug_to_condition" else 2]
    assert any(line.startswith(first_line) for line in lead)
    asked = "chi_dinh" if turn.frame.turn_type == "drug_to_condition" else turn.frame.attribute
    assert asked in {e.section_key for e in turn.bundle.evidence}  # the section itself is quoted


def test_a_reaction_asked_of_a_drug_brings_what_the_book_says_to_do_about_it(service: ChatService) -> None:
    # "does it cause a cough" and "what then" are one bedside question: the handling section says
    # to stop it and switch, after how the ADR list names the cough
    answer = service.turn("Captopril có gây ho không?").answer
    reading = answer.index("Mục “Tác dụng không mong muốn (ADR)” của Captopril nêu “ho”")
    handling = answer.index("ngừng captopril và chuyển sang thuốc chẹn thụ thể angiotensin II")
    assert reading < handling and "(mục “Hướng dẫn cách xử trí ADR”" in answer
    # a reaction the handling section does not name brings none of its lines
    other = service.turn("Captopril có gây rụng tóc không?").answer
    assert "ngừng captopril và chuyển sang" not in other


def test_an_interaction_named_only_by_class_is_quoted_and_said_so(service: ChatService) -> None:
    # gliclazid's section names "các thuốc chống viêm không steroid", never ibuprofen; ibuprofen
    # names neither gliclazid nor its class: the pair had been answered as not naming each other
    turn = service.turn("Gliclazid và ibuprofen có tương tác không?")
    assert turn.decision == "ANSWERABLE"
    assert [(m.drug_id, m.wording) for m in turn.bundle.named_by_class] == [
        ("ibuprofen", "chống viêm không steroid")
    ]
    assert turn.answer.splitlines()[0] == (
        "Mục Tương tác thuốc của Gliclazid không nêu tên Ibuprofen mà nêu nhóm “chống viêm không steroid”; "
        "mục Loại thuốc của Ibuprofen xếp thuốc này vào nhóm đó."
    )
    # paracetamol's Loại thuốc says it is not one: still nothing for that pair
    assert service.turn("Gliclazid và paracetamol có tương tác không?").decision == "ABSTAIN"


def test_a_drug_named_by_its_class_is_said_so_after_the_lines_with_the_section_naming_the_class(
    service: ChatService,
) -> None:
    # spironolacton's contraindications name "thuốc ức chế enzym chuyển angiotensin", never
    # enalapril: the note says which section, and follows the pairs it explains
    answer = service.turn("Spironolacton, enalapril và losartan dùng cùng được không?").answer
    note = "Mục Chống chỉ định của Spironolacton không nêu tên Enalapril mà nêu nhóm"
    assert note in answer
    assert answer.index("• Spironolacton – Enalapril") < answer.index(note)


def test_a_brand_outside_the_formulary_is_read_by_its_class_and_says_where_the_class_is_from(
    service: ChatService,
) -> None:
    # an antacid brand the book never writes: ciprofloxacin's section names "thuốc kháng acid", which
    # had been answered "the section does not mention Maalox" (a false "no information")
    turn = service.turn("Ciprofloxacin uống cùng Maalox được không?")
    assert turn.decision == "ANSWERABLE" and "không nhắc đến" not in turn.answer
    assert "ít nhất 2 giờ trước hoặc 4–6 giờ sau" in turn.answer
    assert (
        "Mục Tương tác thuốc của Ciprofloxacin không nêu tên “Maalox” mà nêu nhóm “thuốc kháng acid”; "
        "bảng mã ATC kèm theo (không phải Dược thư) xếp thuốc này vào nhóm đó."
    ) in turn.answer


def test_which_drugs_a_stage_of_pregnancy_excludes_reads_every_way_the_book_writes_the_stage(
    service: ChatService,
) -> None:
    # "3 tháng giữa và 3 tháng cuối của thai kỳ" (captopril) is the last trimester too: read as
    # written, the stage had found only the drugs writing "Ba tháng cuối thai kỳ"
    last = {
        d.drug_id
        for d in service.turn("Thuốc nào chống chỉ định ở 3 tháng cuối thai kỳ?").bundle.ranked_drugs
    }
    assert {"captopril", "enalapril", "losartan", "ibuprofen", "warfarin"} <= last
    # the second trimester: not a drug excluded only in the last ("Ba tháng cuối thai kỳ")
    middle = service.turn("Thuốc nào chống chỉ định ở 3 tháng giữa thai kỳ?").bundle.ranked_drugs
    assert "captopril" in {d.drug_id for d in middle} and "ibuprofen" not in {d.drug_id for d in middle}


def test_drugs_of_a_wider_finding_are_named_apart_with_their_words(service: ChatService) -> None:
    # ibuprofen's ADR says "loét và xuất huyết tiêu hóa", not "loét dạ dày": it is listed, but
    # never among the drugs that name the finding asked
    turn = service.turn("Thuốc nào gây loét dạ dày?")
    wider = {d.drug_id: d.wider_finding for d in turn.bundle.wider_drugs}
    assert wider["ibuprofen"] == "loét và xuất huyết tiêu hóa"
    assert "ibuprofen" not in {d.drug_id for d in turn.bundle.ranked_drugs}
    lines = turn.answer.splitlines()
    at = next(i for i, line in enumerate(lines) if "tình trạng rộng hơn" in line)
    named = "\n".join(lines[:at])
    assert "Ibuprofen" not in named and "Ibuprofen (“loét và xuất huyết tiêu hóa”)" in lines[at]
    # its own words quoted, with its page
    assert any(
        line.startswith("- Ibuprofen (tr. ") and "loét và xuất huyết tiêu hóa" in line for line in lines
    )


def test_which_drugs_to_avoid_while_breastfeeding_reads_that_section(service: ChatService) -> None:
    turn = service.turn("Thuốc nào không dùng được khi đang cho con bú?")
    assert turn.frame is not None and turn.frame.population == "phu_nu_cho_con_bu"
    listed = {d.drug_id: d.section_key for d in (*turn.bundle.ranked_drugs, *turn.bundle.unlisted_drugs)}
    assert listed["methotrexat"] == "chong_chi_dinh"
    assert listed["esomeprazol"] == listed["diazepam"] == "thoi_ky_cho_con_bu"  # "không nên dùng"
    # "có thể tiếp tục cho con bú", "có thể dùng": nothing against the drug
    assert not {"paracetamol", "warfarin", "digoxin", "omeprazol"} & set(listed)


def test_one_section_of_several_drugs_quotes_each_up_to_the_limit(service: ChatService) -> None:
    turn = service.turn("Chống chỉ định của loratadin, cetirizin, ibuprofen và diclofenac?")
    assert list(dict.fromkeys(e.drug_id for e in turn.bundle.evidence)) == [
        "loratadin",
        "cetirizin",
        "ibuprofen",
    ]
    assert {e.section_key for e in turn.bundle.evidence} == {"chong_chi_dinh"}
    assert "chưa trả lời cho: Diclofenac" in turn.answer  # beyond compared_drug_limit, never silent


def test_two_drugs_for_a_child_are_two_decisions_not_an_interaction(service: ChatService) -> None:
    turn = service.turn("Paracetamol và ibuprofen dùng cho trẻ em được không?")
    assert turn.frame is not None and turn.frame.turn_type == "drug_attribute"
    assert {e.drug_id for e in turn.bundle.evidence} == {"paracetamol", "ibuprofen"}
    assert "chong_chi_dinh" in {e.section_key for e in turn.bundle.evidence if e.drug_id == "ibuprofen"}
    # said together, it is the interaction question
    together = service.turn("Paracetamol và ibuprofen dùng chung cho trẻ em được không?")
    assert together.frame is not None and together.frame.turn_type == "interaction"
    # "là thuốc gì" of two drugs is each one's overview, not an interaction
    overview = service.turn("Paracetamol và ibuprofen là thuốc gì?")
    assert overview.frame is not None and overview.frame.turn_type == "drug_overview"
    assert {e.drug_id for e in overview.bundle.evidence} == {"paracetamol", "ibuprofen"}


def test_an_asthma_patient_with_a_headache_gets_the_nsaid_contraindications(service: ChatService) -> None:
    turn = service.turn("Bệnh nhân hen bị đau đầu thì dùng thuốc gì?")
    assert turn.frame is not None and turn.frame.indication == "đau đầu"  # never the drugs for asthma
    statuses = {s.drug_id: s.status for s in turn.bundle.candidate_statuses}
    # every listed drug is checked: paracetamol's sections say nothing of asthma, never "safe"
    assert statuses == {
        "acid_acetylsalicylic": "CONTRAINDICATED",
        "ibuprofen": "CONTRAINDICATED",
        "paracetamol": "INSUFFICIENT_EVIDENCE",
    }
    assert "Đối chiếu với người bệnh: bệnh kèm theo: hen." in turn.answer
    assert "CHƯA đối chiếu" not in turn.answer
    row = next(line for line in turn.answer.splitlines() if line.startswith("Paracetamol | "))
    assert row.split(" | ")[2] == "mục không nêu"
    # the compact reply: the table and the sentences about this patient, not every part in full
    assert len(turn.answer) <= 3000
    assert "Chống chỉ định của Paracetamol" in turn.quick_replies


@pytest.mark.parametrize(
    ("message", "not_told"),
    [
        ("Bà bầu bị đau đầu thì dùng thuốc gì?", "tuổi thai"),
        ("Người bị suy thận đau đầu uống thuốc gì?", "mức độ suy thận"),
    ],
)
def test_a_level_the_turn_does_not_give_keeps_the_contraindication_and_says_so(
    service: ChatService, message: str, not_told: str
) -> None:
    # the NSAIDs' contraindications are for the last trimester and severe kidney failure only
    turn = service.turn(message)
    statuses = {s.drug_id: s.status for s in turn.bundle.candidate_statuses}
    assert statuses["ibuprofen"] == statuses["acid_acetylsalicylic"] == "CONTRAINDICATED"
    assert f"Câu hỏi chưa nêu {not_told}:" in turn.answer
    told = message.replace("Bà bầu", "Bà bầu 3 tháng cuối").replace("suy thận", "suy thận nhẹ")
    stated = service.turn(told)
    assert "Câu hỏi chưa nêu" not in stated.answer


def test_may_this_patient_take_it_opens_with_the_contraindication_about_them(service: ChatService) -> None:
    turn = service.turn("Trẻ 18 tháng có nên uống loperamid không?")
    assert turn.answer.startswith("Câu trả lời trong mục “Chống chỉ định” của Loperamid (trẻ em):")
    assert turn.answer_lines is not None and "Trẻ em dưới 2 tuổi" in turn.answer_lines.lines[0].text
    # a child outside the only limit the section states: quoted as such, never "not said"
    older = service.turn("Bé 3 tuổi có uống ibuprofen được không?")
    assert older.answer_lines is not None and older.answer_lines.outside_limits
    assert "dưới 3 tháng tuổi" in older.answer_lines.lines[0].text
    assert "không có câu nào nêu" not in older.answer


def test_acute_gout_is_never_answered_with_the_drug_its_section_says_not_to_use(service: ChatService) -> None:
    # allopurinol's chỉ định: "Không dùng allopurinol để điều trị cơn gút cấp"; chronic gout is its use
    acute = [d.drug_id for d in service.turn("Thuốc nào điều trị cơn gút cấp?").bundle.ranked_drugs]
    assert "allopurinol" not in acute and "colchicin" in acute
    chronic = [d.drug_id for d in service.turn("Thuốc nào điều trị gút mạn tính?").bundle.ranked_drugs]
    assert chronic[:1] == ["allopurinol"]


def test_the_patient_described_earlier_is_checked_in_a_later_which_drug_question(
    service: ChatService,
) -> None:
    first = service.turn("Tôi đang dùng warfarin")
    turn = service.turn("Bị đau răng thì uống thuốc gì?", session_id=first.session_id)
    assert turn.frame is not None and turn.frame.patient_context.current_medications == ("warfarin",)
    assert "Đối chiếu với người bệnh: đang dùng warfarin." in turn.answer
    interaction = {
        f.facet: f.status
        for s in turn.bundle.candidate_statuses
        for f in s.facets
        if s.drug_id == "ibuprofen"
    }
    assert interaction.get("interaction") in ("CAUTION", "CONTRAINDICATED")


def test_patient_context_adds_safety_statuses_and_never_says_safe(service: ChatService) -> None:
    turn = service.turn("bệnh nhân suy thận bị tăng huyết áp thì dùng thuốc gì?")
    assert turn.bundle.candidate_statuses
    own_words = turn.answer.split("【")[0]  # the assistant's lines, before the quoted formulary text
    assert "an toàn" not in own_words.replace("KHÔNG có nghĩa là an toàn", "")


def test_a_maximum_dose_question_quotes_the_answering_line_first_then_the_whole_section(
    service: ChatService,
) -> None:
    turn = service.turn("Liều tối đa một ngày của paracetamol cho người lớn là bao nhiêu?")
    assert turn.answer_lines is not None and not turn.answer_lines.not_said
    assert any("tối đa 4 g/ngày" in line.text for line in turn.answer_lines.lines)
    first = turn.answer.split("【", 1)[0]
    assert first.startswith("Câu trả lời trong mục “Liều lượng và cách dùng” của Paracetamol")
    # nothing of the section is dropped: every part still follows
    assert {e.section_key for e in turn.bundle.evidence} == {"lieu_luong_va_cach_dung"}
    assert all(e.text in turn.answer for e in turn.bundle.evidence)


def test_a_dose_question_the_section_does_not_answer_says_so_in_one_line(service: ChatService) -> None:
    turn = service.turn("Fluconazol cho người suy gan dùng liều bao nhiêu?")
    assert turn.answer_lines is not None and turn.answer_lines.not_said
    assert turn.answer_lines.other_section_key == "than_trong"
    # the caution that names the patient's state leads; the dose section's silence follows it
    assert turn.answer.startswith("Mục “Thận trọng” của Fluconazol nêu (suy gan):")
    assert "Mục “Liều lượng và cách dùng” của Fluconazol không có câu nào nêu “suy gan”." in turn.answer


def test_a_population_question_always_carries_the_whole_contraindication_section(
    service: ChatService,
) -> None:
    turn = service.turn("Loperamid dùng cho trẻ em được không, bé nhà tôi đi ngoài mấy hôm rồi?")
    assert turn.frame is not None and turn.frame.population == "tre_em"
    contraindications = service.retrieval.store.find_by_section("loperamid", "chong_chi_dinh")
    assert contraindications
    assert {p.id for p in contraindications} <= {e.id for e in turn.bundle.evidence}


def test_a_named_drugs_effect_the_adr_list_omits_is_quoted_from_the_section_that_states_it(
    service: ChatService,
) -> None:
    # amiodaron's ADR list is silent on QT; its Dược lý states "khoảng QT kéo dài trên điện tâm đồ"
    turn = service.turn("Amiodaron có gây kéo dài khoảng QT không?")
    found = turn.answer_lines
    assert found is not None and found.other_section_key == "duoc_ly_va_co_che_tac_dung"
    assert [line.section_key for line in found.lines] == ["duoc_ly_va_co_che_tac_dung"]
    assert "khoảng QT kéo dài trên điện tâm đồ" in found.lines[0].text
    lead = turn.answer.splitlines()
    assert lead[0] == "Mục “Dược lý và cơ chế tác dụng” của Amiodaron nêu “khoảng QT kéo dài”:"
    assert lead[1].startswith("- “Hậu quả là") and "tr. 449" in lead[1]
    assert lead[2].startswith(
        "Mục “Tác dụng không mong muốn (ADR)” của Amiodaron không nêu “khoảng QT kéo dài”"
    )
    assert "tac_dung_khong_mong_muon" in {e.section_key for e in turn.bundle.evidence}  # quoted as before


@pytest.mark.parametrize(
    "question",
    [
        "Salbutamol có gây kéo dài khoảng QT không?",  # Thận trọng: "ở người bệnh ... khoảng QT kéo dài"
        "Cetirizin có làm kéo dài khoảng QT không?",  # Dược lý: "không làm kéo dài khoảng QT"
        "Paracetamol có gây rụng tóc không?",  # named nowhere
    ],
)
def test_a_finding_no_section_states_as_the_drugs_effect_names_the_sections_read_never_a_no(
    service: ChatService, question: str
) -> None:
    turn = service.turn(question)
    found = turn.answer_lines
    assert found is not None and found.not_said and found.lines == ()
    first = turn.answer.splitlines()[0]
    assert first.startswith("Các mục “Tác dụng không mong muốn (ADR)”, “Thận trọng” và “Dược lý")
    assert "không gây" not in first and "an toàn" not in first


def test_the_best_line_leads_and_says_which_section_it_is_from(service: ChatService) -> None:
    """Routed to the interactions, the answer is in Tương kỵ: its line comes first, with its
    section and page, and the routed section follows whole."""
    turn = service.turn("Lasix ống tiêm pha với glucose 5% để truyền được ko hay phải NaCl?")
    lines = [line for line in turn.answer.splitlines() if line.strip()]
    assert "không nên dùng dung dịch glucose để pha" in lines[1] and "mục “Tương kỵ”" in lines[1]
    assert turn.reply is not None and turn.reply.blocks[0].type == "answer_lines"
    assert sum(len(line) + 1 for line in turn.reply.blocks[0].lines) <= 800


def test_a_decline_about_a_named_drug_reads_its_monograph_first(service: ChatService) -> None:
    """Read before saying no: a question the rules take for out of scope, about a catalogue drug
    whose monograph answers it, is answered with the line."""
    turn = service.turn("Bn quên uống Plavix lúc 7h sáng, 4h chiều mới nhớ ra. Uống bù luôn hay bỏ?")
    assert "quá 12 giờ thì bỏ qua" in turn.answer
    assert "nằm ngoài nội dung" not in turn.answer and turn.decision != "ABSTAIN"


def test_a_pregnancy_column_reads_the_sentence_for_the_patients_stage(service: ChatService) -> None:
    # ibuprofen's sections exclude the third trimester: at 7 months both columns say so, the
    # sentence quoted; at 10 weeks that sentence does not apply and is not what the column quotes
    late = service.turn("Bệnh nhân nữ 28 tuổi mang thai 7 tháng bị đau khớp, dùng thuốc giảm đau nào?")
    facets = {
        f.facet: f for c in late.bundle.candidate_statuses if c.drug_id == "ibuprofen" for f in c.facets
    }
    assert facets["pregnancy"].status == facets["warnings"].status == "CONTRAINDICATED"
    assert "3 tháng cuối" in facets["pregnancy"].quotes[0] or "Ba tháng cuối" in facets["pregnancy"].quotes[0]
    early = service.turn("Thai phụ 10 tuần bị đau đầu, dùng thuốc giảm đau nào?")
    facets = {
        f.facet: f for c in early.bundle.candidate_statuses if c.drug_id == "ibuprofen" for f in c.facets
    }
    assert facets["pregnancy"].status == "CAUTION" and "3 tháng cuối" not in facets["pregnancy"].quotes[0]
    # a contraindicated drug is shown first
    assert late.reply is not None
    rows = next(b for b in late.reply.blocks if b.type == "patient_table").rows
    assert rows[0].status == "CONTRAINDICATED"


def test_a_long_list_of_drugs_is_grouped_by_class_within_the_reply_target(service: ChatService) -> None:
    turn = service.turn("Thuốc nào gây buồn nôn?")
    assert "theo nhóm ở mục “Loại thuốc”" in turn.answer and len(turn.answer) <= 3000
    assert any(reply.endswith("nào gây buồn nôn?") for reply in turn.quick_replies)


def test_a_request_not_done_says_so_before_the_lines_that_help(service: ChatService) -> None:
    """Writing a document is not done; the drug's lines that help follow the sentence that says
    so, never in its place. A missed dose, which a monograph may answer, is answered."""
    turn = service.turn("Viết giúp tờ hướng dẫn xuất viện cho BN đang dùng warfarin, khoảng 1 trang A4.")
    assert turn.reply is not None and turn.reply.blocks[0].type == "notice"
    assert "nằm ngoài nội dung" in turn.answer.splitlines()[0] and "【Warfarin】" in turn.answer
    missed = service.turn("Bn quên uống Plavix lúc 7h sáng, 4h chiều mới nhớ ra. Uống bù luôn hay bỏ?")
    assert "nằm ngoài nội dung" not in missed.answer and "quá 12 giờ thì bỏ qua" in missed.answer


def test_a_which_drug_question_no_list_answers_reads_the_book_before_saying_no(service: ChatService) -> None:
    """No relation is read and the drug it names is outside the catalogue: the book's sentences
    that answer it are quoted, each with its drug, section and page, never "not found"; they name
    the drug, so the notice that it has no monograph follows them."""
    turn = service.turn("Những thuốc nào có nguy cơ tiêu cơ vân nếu phối hợp với clarithromycin?")
    assert turn.reply is not None and turn.reply.blocks[0].type in {"answer_lines", "notice"}
    assert "không có sẵn danh sách thuốc" in turn.answer and "không tìm thấy" not in turn.answer.lower()
    assert "Atorvastatin, mục “Tương tác thuốc”" in turn.answer
    assert turn.answer.index("“clarithromycin” không có chuyên luận riêng") > turn.answer.index("- “")


def test_the_interactions_of_names_outside_the_catalogue_are_the_lines_naming_them(
    service: ChatService,
) -> None:
    """Neither name has a monograph: the other monographs' interaction sections naming them are
    listed after saying so, never a question back or a bare "not found"."""
    turn = service.turn("simvastatin với clarithromycin")
    assert "không có chuyên luận riêng" in turn.answer and "Warfarin" in turn.answer
    assert "Bạn có thể nói rõ" not in turn.answer
    # a question that is no which-drug question is still asked back; a made-up name is not found,
    # never answered with other drugs' lines that share the words naming a section
    assert "Bạn muốn hỏi về thuốc nào" in service.turn("Liều dùng bao nhiêu?").answer
    for made_up in ("Chống chỉ định của thuốc xyzabc là gì?", "Thuốc nào tương tác với xyzabc?"):
        reply = service.turn(made_up).answer
        assert "xyzabc" in reply and "danh sách thuốc" not in reply and "【" not in reply, made_up


def test_which_drugs_need_caution_or_interact_are_read_in_that_section_across_the_book(
    service: ChatService,
) -> None:
    # the section named is the relation: Thận trọng, across every drug
    caution = service.turn("Thuốc nào cần thận trọng ở người bệnh hen?")
    assert {"ibuprofen", "diclofenac"} <= {d.drug_id for d in caution.bundle.ranked_drugs}
    assert "Mục “Thận trọng” của" in caution.answer and "không tìm thấy" not in caution.answer.casefold()
    # a name without a monograph, named in other drugs' interaction sections, is never "not found"
    named = service.turn("Những thuốc nào có tương tác với clarithromycin?")
    assert "colchicin" in {d.drug_id for d in named.bundle.ranked_drugs}
    assert "các thuốc dưới đây có mục nhắc đến “clarithromycin”" in named.answer
    assert "không tìm thấy" not in named.answer.casefold()
    # nothing found says what was read
    none = service.turn("Thuốc nào tương tác với thuốc xyzabc?")
    assert none.bundle.decision == "ABSTAIN"
    assert "Tôi đã đọc mục “Tương tác thuốc” của cả 40 thuốc" in none.answer


def test_which_drugs_interact_with_a_catalogue_drug_lists_the_drugs_whose_section_names_it(
    service: ChatService,
) -> None:
    """The formulary writes an interaction under either drug: after the drug's own interaction
    section (whole, first), the other drugs whose interaction section names it, each with its
    sentence, section and page; every one of them in the list block, never the drug itself."""
    for question in ("Thuốc nào tương tác với warfarin?", "warfarin tương tác với những thuốc nào"):
        turn = service.turn(question)
        assert turn.reply is not None, question
        types = [block.type for block in turn.reply.blocks]
        listed = next(block for block in turn.reply.blocks if block.type == "drug_list")
        assert types.index("drug_list") > max(
            i for i, t in enumerate(types) if t in {"answer_lines", "section", "generated"}
        ), question
        assert turn.answer.index("【Warfarin】 Tương tác thuốc") < turn.answer.index(
            "Mục “Tương tác thuốc” của"
        )
        drugs = {drug.drug_id for drug in listed.drugs}
        # amiodaron, clopidogrel and allopurinol each name warfarin on their own page
        assert {"amiodaron", "clopidogrel", "allopurinol", "ibuprofen"} <= drugs and "warfarin" not in drugs
        assert {drug.section_key for drug in listed.drugs} == {"tuong_tac_thuoc"}
        assert "- Ibuprofen (tr. 134): “Thuốc chống đông (warfarin" in turn.answer
        assert any("tr. 134" in c for c in turn.citations), "\n".join(turn.citations)
    # a brand or other name the catalogue gives counts as the drug's name ("aspirin")
    aspirin = service.turn("Thuốc nào tương tác với aspirin?")
    named = (
        next(block for block in aspirin.reply.blocks if block.type == "drug_list") if aspirin.reply else None
    )
    assert named is not None and "warfarin" in {drug.drug_id for drug in named.drugs}
    # no other drug's section names it: what was read is said, after its own section
    alone = service.turn("Thuốc nào tương tác với aciclovir?")
    assert "Tôi đã đọc mục “Tương tác thuốc” của 39 thuốc khác trong Dược thư" in alone.answer
    assert alone.bundle.decision != "ABSTAIN" and "【Aciclovir】 Tương tác thuốc" in alone.answer


def test_what_a_drug_interacts_with_answers_from_its_own_section(service: ChatService) -> None:
    """A question about the drug alone ("X tương tác gì?") quotes its section, no list."""
    turn = service.turn("warfarin tương tác gì?")
    assert turn.reply is not None and "drug_list" not in [block.type for block in turn.reply.blocks]
    assert "【Warfarin】 Tương tác thuốc" in turn.answer


def test_a_condition_no_indication_names_reads_the_book_unless_a_patient_is_described(
    service: ChatService,
) -> None:
    # no chỉ định names the lay words: the book's sentences holding them are quoted, not "not found"
    turn = service.turn("Sổ mũi, hắt hơi liên tục mỗi lần trở trời thì xài thuốc gì cho đỡ?")
    assert "không có sẵn danh sách thuốc" in turn.answer and "không tìm thấy" not in turn.answer.casefold()
    assert "(Loratadin, mục “Chỉ định”" in turn.answer
    # with a patient described, the book's lines (never checked against them) are not offered:
    # the reply says what was read
    allergic = service.turn("Mẹ tôi dị ứng với Flagyl, bị viêm âm đạo do trichomonas thì chữa bằng thuốc gì?")
    assert (
        allergic.bundle.decision == "ABSTAIN"
        and "Tôi đã đọc mục “Chỉ định” của cả 40 thuốc" in allergic.answer
    )


def test_a_dose_for_a_patient_on_another_medicine_reads_their_state_and_checks_the_pair(
    service: ChatService,
) -> None:
    """A dose asked for a patient of 60 kg in renal failure who takes warfarin: the renal line of
    the dose section leads (no weight band holds 60 kg, and the section does state renal
    failure: never "does not say"), and fluconazol's lines on warfarin are quoted too."""
    turn = service.turn("BN 60kg, ClCr 40, đang warfarin. Fluconazol liều nạp và duy trì thế nào?")
    assert "từ 50 ml/phút trở xuống dùng 50% liều" in turn.answer
    assert "không có câu nào nêu" not in turn.answer
    assert "fluconazol làm tăng tác dụng chống đông của warfarin" in turn.answer
