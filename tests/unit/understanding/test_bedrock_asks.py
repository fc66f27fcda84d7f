"""Bedrock keeps the plan's contract (issue 35): for each ask and reply kind `plan_turn` produces, a
message goes through the real pipeline (`several_asks.plan_message` over `pipeline.understand_read`)
with the Bedrock provider on a botocore Stubber that expects the exact Converse request (model id,
system prompt, the frame as the forced tool, the candidates shown) and returns the tool-use frame a
model following the prompt gives; the plan's reply and asks are the offline rules' for the message.

Each model frame sets only what the prompt asks for, in the prompt's words: a frame the prompt
cannot get from a model is a gap in the prompt, not in the test."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pytest
from botocore.stub import Stubber
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline
from duocthu.models.frame import PatientContext, QueryFrame
from duocthu.models.plan import Plan
from duocthu.retrieval.facets import PatientProfile
from duocthu.understanding.bedrock import BedrockFrameProvider
from duocthu.understanding.candidates import Turn
from duocthu.understanding.pipeline import understand_read
from duocthu.understanding.prompt import SYSTEM_PROMPT, frame_tool_schema, user_message
from duocthu.understanding.providers import FrameProvider
from duocthu.understanding.rules.provider import OfflineFrameProvider
from duocthu.understanding.several_asks import Understand, plan_message
from duocthu.understanding.tags import MessageReader

from tests.unit.understanding.bedrock_converse import converse_request, tool_use

MODEL = "apac.anthropic.claude-3-5-sonnet-20241022-v2:0"
MAX_TOKENS = 700


class _Replaying:
    """A stand-in client for the first pass: each converse call gets the next model frame."""

    def __init__(self, frames: Sequence[dict[str, Any]]):
        self.frames = list(frames)

    def converse(self, **_: Any) -> dict[str, Any]:
        return tool_use(self.frames.pop(0))


class _TurnsKept(BedrockFrameProvider):
    """The Bedrock provider, keeping each turn it is asked about (the requests to expect)."""

    def __init__(self, client: Any):
        super().__init__(lambda _read_s: client, MODEL, max_tokens=MAX_TOKENS, read_timeout_s=20)
        self.turns: list[Turn] = []

    def propose(self, turn: Turn, deadline: Deadline) -> dict[str, Any]:
        self.turns.append(turn)
        return super().propose(turn, deadline)


def _understanding(provider: FrameProvider) -> Understand:
    def understand(
        text: str, history: Sequence[str], prior: QueryFrame | None, reader: MessageReader
    ) -> QueryFrame:
        return understand_read(text, reader, provider, Deadline.after(10), history, prior)

    return understand


def _bedrock_plan(
    message: str,
    frames: Sequence[dict[str, Any]],
    resolver: CatalogDrugResolver,
    stubbed: tuple[Any, Stubber],
) -> tuple[Plan, list[Turn]]:
    """The message planned with Bedrock answering `frames`, one per model call, in order. A first
    pass finds the turns the pipeline asks about; the second runs on the Stubber, which fails on
    any request other than the one written out for each turn, in order."""
    kept = _TurnsKept(_Replaying(frames))
    plan_message(message, (), None, _understanding(kept), resolver)
    client, stubber = stubbed
    for turn, frame in zip(kept.turns, frames, strict=True):
        stubber.add_response("converse", tool_use(frame), converse_request(turn, MODEL, MAX_TOKENS))
    stubbed_provider = BedrockFrameProvider(lambda _: client, MODEL, MAX_TOKENS, read_timeout_s=20)
    return plan_message(message, (), None, _understanding(stubbed_provider), resolver), kept.turns


def _offline_plan(message: str, resolver: CatalogDrugResolver) -> Plan:
    return plan_message(message, (), None, _understanding(OfflineFrameProvider()), resolver)


def _contract(plan: Plan) -> tuple[object, ...]:
    """What the plan promises retrieval and the composers: the reply, why a decline declines, the
    asks, the drugs asked together, a dose left uncomputed, each part's own, and the patient the
    asks that check one are checked against."""
    checked = any(ask.patient_check or ask.with_patient for ask in plan.asks)
    return (
        plan.reply,
        plan.reason,
        plan.asks,
        plan.together,
        plan.dose_calculation,
        PatientProfile.from_frame(plan.frame) if checked else None,
        tuple((part.clause, _contract(part)) for part in plan.parts),
    )


def _one(message: str, reply: str, case: str, **frame: Any) -> Any:
    """A message asked in one model call, the frame the model gives for it."""
    return pytest.param(message, reply, [frame], id=case)


DRUG_ATTRIBUTE, INTERACTION = "drug_attribute", "interaction"
# (message, the reply kind, the frames a model following the prompt gives, one per call)
CASES = [
    # one drug's section; its interactions, with the drugs whose sections name it
    _one("Ibuprofen cần thận trọng gì?", "sections", "section",
         turn_type=DRUG_ATTRIBUTE, drugs=["ibuprofen"], attribute="than_trong"),
    _one("Ciprofloxacin tương tác với thuốc nào?", "sections", "section-and-drugs-naming-it",
         turn_type=DRUG_ATTRIBUTE, drugs=["ciprofloxacin"], attribute="tuong_tac_thuoc"),
    _one("Chống chỉ định của ibuprofen và diclofenac là gì?", "sections", "each-drug",
         turn_type=DRUG_ATTRIBUTE, drugs=["ibuprofen", "diclofenac"], attribute="chong_chi_dinh"),
    _one("Paracetamol là thuốc gì?", "sections", "overview",
         turn_type="drug_overview", drugs=["paracetamol"]),
    # whether this patient may take the drug: the monograph read for the patient
    _one("Bé 2 tuổi tiêu chảy dùng loperamid được không?", "sections", "monograph-for-the-patient",
         turn_type=DRUG_ATTRIBUTE, drugs=["loperamid"], population="tre_em", age_text="2 tuổi"),
    _one("Người suy thận dùng ibuprofen được không?", "sections", "monograph-for-a-kidney-patient",
         turn_type=DRUG_ATTRIBUTE, drugs=["ibuprofen"], population="suy_than",
         patient_context={"renal_function": "suy thận"}),
    _one("Phụ nữ cho con bú dùng loratadin được không?", "sections", "section-of-the-patient-s-state",
         turn_type=DRUG_ATTRIBUTE, drugs=["loratadin"], attribute="thoi_ky_cho_con_bu",
         population="phu_nu_cho_con_bu", patient_context={"breastfeeding": True}),
    _one("Paracetamol cho trẻ 12 kg liều bao nhiêu?", "sections", "dose",
         turn_type="dosing_calc", drugs=["paracetamol"], attribute="lieu_luong_va_cach_dung",
         weight_kg=12, population="tre_em"),
    _one("Metformin có trị tiểu đường không?", "sections", "uses",
         turn_type="drug_to_condition", drugs=["metformin"], attribute="chi_dinh",
         condition_relation="indication", condition={"text": "tiểu đường"}),
    _one("Amlodipin có gây phù không?", "sections", "section-read-for-an-effect",
         turn_type=DRUG_ATTRIBUTE, drugs=["amlodipin"], attribute="tac_dung_khong_mong_muon",
         condition_relation="adverse_effect", condition={"text": "phù"}),
    # drugs asked together: two, a name the catalogue lacks, three or more (pairs)
    _one("Warfarin và aspirin có dùng chung được không?", "sections", "together",
         turn_type=INTERACTION, drugs=["warfarin", "acid_acetylsalicylic"], attribute="tuong_tac_thuoc"),
    _one("Warfarin và rifampicin dùng chung được không?", "sections", "together-with-a-name-not-in-the-book",
         turn_type=INTERACTION, drugs=["warfarin"], unknown_drugs=["rifampicin"],
         attribute="tuong_tac_thuoc"),
    _one("Warfarin, aspirin và ibuprofen dùng chung được không?", "pairs", "pairs",
         turn_type=INTERACTION, drugs=["warfarin", "acid_acetylsalicylic", "ibuprofen"],
         attribute="tuong_tac_thuoc"),
    _one("Đang uống warfarin và amiodaron, uống thêm ibuprofen được không?", "beside_medicines",
         "beside-medicines", turn_type=DRUG_ATTRIBUTE, drugs=["ibuprofen"],
         patient_context={"current_medications": ["warfarin", "amiodaron"]}),
    # which drugs: a list checked against the patient, a relation
    _one("Bệnh nhân suy thận, tăng huyết áp nên dùng thuốc nào?", "drug_list", "drug-list-kidney",
         turn_type="condition_to_drug", condition_relation="indication", condition={"text": "tăng huyết áp"},
         population="suy_than", patient_context={"renal_function": "suy thận"}),
    _one("Bệnh nhân hen bị đau đầu nên dùng thuốc nào?", "drug_list", "drug-list-comorbidity",
         turn_type="symptom_to_drug", condition_relation="indication", condition={"text": "đau đầu"},
         patient_context={"comorbidities": ["hen"]}),
    _one("Phụ nữ có thai bị tăng huyết áp nên dùng thuốc gì?", "drug_list", "drug-list-pregnancy",
         turn_type="condition_to_drug", condition_relation="indication", condition={"text": "tăng huyết áp"},
         population="phu_nu_co_thai", patient_context={"pregnancy": True}),
    _one("Thuốc nào trị tiểu đường?", "drug_list", "drug-list-lay-name",
         turn_type="condition_to_drug", condition_relation="indication",
         condition={"text": "tiểu đường", "normalized": "đái tháo đường"}),
    _one("Thuốc nào gây ho khan?", "sections", "relation",
         turn_type="condition_relation", condition_relation="adverse_effect", condition={"text": "ho khan"}),
    # no evidence, or read before no: outside the formulary, out of scope, a question back
    _one("Rosuvastatin có tác dụng phụ gì?", "decline", "decline-outside-the-formulary",
         turn_type=DRUG_ATTRIBUTE, unknown_drugs=["Rosuvastatin"], attribute="tac_dung_khong_mong_muon"),
    _one("Thuốc nào tương tác với clarithromycin?", "decline", "decline-read-in-sections-naming-it",
         turn_type=DRUG_ATTRIBUTE, unknown_drugs=["clarithromycin"], attribute="tuong_tac_thuoc"),
    _one("Thuốc nào chứa rosuvastatin?", "decline", "decline-read-in-the-book",
         turn_type=DRUG_ATTRIBUTE, unknown_drugs=["rosuvastatin"]),
    _one("Ibuprofen giá bao nhiêu?", "decline", "decline-out-of-scope",
         turn_type="out_of_scope", drugs=["ibuprofen"]),
    _one("Thuốc này uống sao?", "clarify", "clarify",
         turn_type=DRUG_ATTRIBUTE, needs_clarify=True, clarify_reason="Bạn hỏi thuốc nào?"),
    _one("Xin chào", "smalltalk", "smalltalk", turn_type="smalltalk"),
    # several asks: one model call per clause, the clause before as its conversation
    pytest.param(
        "Chống chỉ định của ibuprofen là gì? có dùng cho phụ nữ có thai được không?",
        "several_asks",
        [
            {"turn_type": DRUG_ATTRIBUTE, "drugs": ["ibuprofen"], "attribute": "chong_chi_dinh"},
            {
                "turn_type": DRUG_ATTRIBUTE,
                "drugs": ["ibuprofen"],
                "attribute": "thoi_ky_mang_thai",
                "population": "phu_nu_co_thai",
                "patient_context": {"pregnancy": True},
                "context_action": "continue",
                "depends_on_previous_turn": True,
            },
        ],
        id="several-asks",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("message", "reply", "frames"), CASES)
def test_the_model_s_frame_plans_what_the_offline_rules_plan(
    resolver: CatalogDrugResolver,
    stubbed: tuple[Any, Stubber],
    message: str,
    reply: str,
    frames: list[dict[str, Any]],
) -> None:
    # Given the frames a model following the prompt writes for the message
    # When the message is planned with Bedrock on the Stubber
    plan, turns = _bedrock_plan(message, frames, resolver, stubbed)
    # Then every drug the model named was shown to it as a candidate
    for turn, frame in zip(turns, frames, strict=True):
        shown = user_message(turn.message, turn.history, turn.prior, turn.candidates)
        assert all(f"\n{drug}\t" in shown for drug in frame.get("drugs", []))
    # And the plan is the offline rules' plan
    assert plan.reply == reply
    assert _contract(plan) == _contract(_offline_plan(message, resolver))


# Where the model's plan and the rules' differ, the monographs decide; here the model's is right.
# (message, the model's frame, its reply, reason and ask kinds, the rules' reply and reason)
DIFFERENCES = [
    # No monograph states a price: "giá … bao nhiêu" is out of scope whatever stands between its
    # words, and the drug's lines are read before the decline. The rules' price cue is a
    # contiguous phrase, so with the name inside it they rank ibuprofen's monograph for the words.
    pytest.param(
        "Giá ibuprofen bao nhiêu?",
        {"turn_type": "out_of_scope", "drugs": ["ibuprofen"]},
        ("decline", "out_of_scope", ("lines",)),
        ("sections", None),
        id="price-around-the-name",
    ),
    # A price again ("rẻ nhất"): the rules, with no price cue, ask which drug is meant, as though
    # naming one would get a price; the model declines it as out of scope, the book read first.
    pytest.param(
        "Thuốc nào rẻ nhất?",
        {"turn_type": "out_of_scope"},
        ("decline", "out_of_scope", ("book_lines",)),
        ("clarify", "needs_clarification"),
        id="cheapest",
    ),
    # Which drugs treat mumps: no monograph's indications name it (prednisolon names it only
    # among live vaccines it forbids, p. 474), so the list asked for is the answer: none. The
    # rules, with no table row for the disease, ask back which drug is meant.
    pytest.param(
        "Thuốc nào điều trị bệnh quai bị?",
        {
            "turn_type": "condition_to_drug",
            "condition_relation": "indication",
            "condition": {"text": "quai bị"},
        },
        ("drug_list", None, ("condition",)),
        ("clarify", "needs_clarification"),
        id="a-disease-no-table-names",
    ),
]


@pytest.mark.parametrize(("message", "frame", "bedrock", "offline"), DIFFERENCES)
def test_where_the_rules_differ_the_model_s_plan_is_the_monograph_s(
    resolver: CatalogDrugResolver,
    stubbed: tuple[Any, Stubber],
    message: str,
    frame: dict[str, Any],
    bedrock: tuple[object, ...],
    offline: tuple[object, ...],
) -> None:
    plan, _ = _bedrock_plan(message, [frame], resolver, stubbed)
    assert (plan.reply, plan.reason, tuple(ask.kind for ask in plan.asks)) == bedrock
    rules = _offline_plan(message, resolver)
    assert (rules.reply, rules.reason) == offline  # the rules' reading, until they are fixed


# What the plan and the patient check read of a frame (`understanding.plan`, `retrieval.facets`).
_READ_BY_THE_PLAN = (
    "turn_type", "drugs", "unknown_drugs", "attribute", "population", "age_text", "weight_kg",
    "condition", "condition_relation", "needs_clarify", "patient_context",
    *PatientContext.model_fields,
)  # fmt: skip


@pytest.mark.parametrize("field", _READ_BY_THE_PLAN)
def test_every_field_the_plan_reads_is_offered_and_explained_to_the_model(field: str) -> None:
    properties = frame_tool_schema()["properties"]
    assert field in properties or field in properties["patient_context"]["properties"]
    assert re.search(rf"\b{field}\b", SYSTEM_PROMPT), f"the prompt never asks for {field}"
