"""Bedrock keeps the plan's contract (issue 35): for each ask and reply kind `plan_turn` produces, a
message goes through the real pipeline (`several_asks.plan_message` over `pipeline.understand_read`)
with the Bedrock provider on a botocore Stubber that expects the exact Converse request (model id,
system prompt, the frame as the forced tool, the candidates shown) and returns the tool-use frame a
model following the prompt gives; the plan's reply and asks are the offline rules' for the message.

Each model frame sets only what the prompt asks for, in the prompt's words: a frame the prompt
cannot get from a model is a gap in the prompt, not in the test."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline
from duocthu.models.frame import QueryFrame
from duocthu.models.plan import Plan
from duocthu.retrieval.facets import PatientProfile
from duocthu.understanding.bedrock import BedrockFrameProvider
from duocthu.understanding.candidates import Turn
from duocthu.understanding.pipeline import understand_read
from duocthu.understanding.prompt import (
    SYSTEM_PROMPT,
    TOOL_DESCRIPTION,
    TOOL_NAME,
    frame_tool_schema,
    user_message,
)
from duocthu.understanding.providers import FrameProvider
from duocthu.understanding.rules.provider import OfflineFrameProvider
from duocthu.understanding.several_asks import Understand, plan_message
from duocthu.understanding.tags import MessageReader

MODEL = "apac.anthropic.claude-3-5-sonnet-20241022-v2:0"
MAX_TOKENS = 700


def _tool_use(frame: dict[str, Any]) -> dict[str, Any]:
    """A Converse response whose one content block is the forced tool's call with this input."""
    return {
        "output": {
            "message": {
                "role": "assistant",
                "content": [{"toolUse": {"toolUseId": "tooluse_1", "name": TOOL_NAME, "input": frame}}],
            }
        },
        "stopReason": "tool_use",
        "usage": {"inputTokens": 1200, "outputTokens": 90, "totalTokens": 1290},
        "metrics": {"latencyMs": 700},
    }


def _expected_request(turn: Turn) -> dict[str, Any]:
    """The Converse request a turn must send, written out: nothing but the prompt module's parts."""
    text = user_message(turn.message, turn.history, turn.prior, turn.candidates)
    return {
        "modelId": MODEL,
        "system": [{"text": SYSTEM_PROMPT}],
        "messages": [{"role": "user", "content": [{"text": text}]}],
        "toolConfig": {
            "tools": [
                {
                    "toolSpec": {
                        "name": TOOL_NAME,
                        "description": TOOL_DESCRIPTION,
                        "inputSchema": {"json": frame_tool_schema()},
                    }
                }
            ],
            "toolChoice": {"tool": {"name": TOOL_NAME}},
        },
        "inferenceConfig": {"maxTokens": MAX_TOKENS, "temperature": 0.0},
    }


class _Replaying:
    """A stand-in client for the first pass: each converse call gets the next model frame."""

    def __init__(self, frames: Sequence[dict[str, Any]]):
        self.frames = list(frames)

    def converse(self, **_: Any) -> dict[str, Any]:
        return _tool_use(self.frames.pop(0))


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


@pytest.fixture
def stubbed(aws_env: None) -> Iterator[tuple[Any, Stubber]]:
    client = boto3.client("bedrock-runtime", region_name="ap-southeast-1")
    with Stubber(client) as stubber:
        yield client, stubber
        stubber.assert_no_pending_responses()


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
        stubber.add_response("converse", _tool_use(frame), _expected_request(turn))
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


# (message, the reply kind, the frames a model following the prompt gives, one per call)
CASES = [
    pytest.param(
        "Ibuprofen cần thận trọng gì?",
        "sections",
        [{"turn_type": "drug_attribute", "drugs": ["ibuprofen"], "attribute": "than_trong"}],
        id="section",
    ),
    pytest.param(
        "Paracetamol là thuốc gì?",
        "sections",
        [{"turn_type": "drug_overview", "drugs": ["paracetamol"], "attribute": None}],
        id="overview",
    ),
    pytest.param(
        "Bé 2 tuổi tiêu chảy dùng loperamid được không?",
        "sections",
        [
            {
                "turn_type": "drug_attribute",
                "drugs": ["loperamid"],
                "attribute": None,
                "population": "tre_em",
                "age_text": "2 tuổi",
            }
        ],
        id="monograph-for-the-patient",
    ),
    pytest.param(
        "Warfarin và aspirin có dùng chung được không?",
        "sections",
        [
            {
                "turn_type": "interaction",
                "drugs": ["warfarin", "acid_acetylsalicylic"],
                "attribute": "tuong_tac_thuoc",
            }
        ],
        id="together",
    ),
    pytest.param(
        "Warfarin, aspirin và ibuprofen dùng chung được không?",
        "pairs",
        [
            {
                "turn_type": "interaction",
                "drugs": ["warfarin", "acid_acetylsalicylic", "ibuprofen"],
                "attribute": "tuong_tac_thuoc",
            }
        ],
        id="pairs",
    ),
    pytest.param(
        "Đang uống warfarin và amiodaron, uống thêm ibuprofen được không?",
        "beside_medicines",
        [
            {
                "turn_type": "drug_attribute",
                "drugs": ["ibuprofen"],
                "patient_context": {"current_medications": ["warfarin", "amiodaron"]},
            }
        ],
        id="beside-medicines",
    ),
    pytest.param(
        "Bệnh nhân suy thận, tăng huyết áp nên dùng thuốc nào?",
        "drug_list",
        [
            {
                "turn_type": "condition_to_drug",
                "condition_relation": "indication",
                "condition": {"text": "tăng huyết áp"},
                "population": "suy_than",
                "patient_context": {"renal_function": "suy thận"},
            }
        ],
        id="drug-list-checked-for-the-patient",
    ),
    pytest.param(
        "Thuốc nào gây ho khan?",
        "sections",
        [
            {
                "turn_type": "condition_relation",
                "condition_relation": "adverse_effect",
                "condition": {"text": "ho khan"},
            }
        ],
        id="relation",
    ),
    pytest.param(
        "Chống chỉ định của ibuprofen là gì? có dùng cho phụ nữ có thai được không?",
        "several_asks",
        [
            {"turn_type": "drug_attribute", "drugs": ["ibuprofen"], "attribute": "chong_chi_dinh"},
            {
                "turn_type": "drug_attribute",
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
    pytest.param(
        "Rosuvastatin có tác dụng phụ gì?",
        "decline",
        [
            {
                "turn_type": "drug_attribute",
                "unknown_drugs": ["Rosuvastatin"],
                "attribute": "tac_dung_khong_mong_muon",
            }
        ],
        id="decline-outside-the-formulary",
    ),
    pytest.param(
        "Thuốc này uống sao?",
        "clarify",
        [{"turn_type": "drug_attribute", "needs_clarify": True, "clarify_reason": "Bạn hỏi thuốc nào?"}],
        id="clarify",
    ),
    pytest.param(
        "Thuốc nào trị tiểu đường?",
        "drug_list",
        [
            {
                "turn_type": "condition_to_drug",
                "condition_relation": "indication",
                "condition": {"text": "tiểu đường", "normalized": "đái tháo đường"},
            }
        ],
        id="drug-list-for-a-lay-name",
    ),
    pytest.param(
        "Paracetamol cho trẻ 12 kg liều bao nhiêu?",
        "sections",
        [
            {
                "turn_type": "dosing_calc",
                "drugs": ["paracetamol"],
                "attribute": "lieu_luong_va_cach_dung",
                "weight_kg": 12,
                "population": "tre_em",
            }
        ],
        id="dose",
    ),
    pytest.param(
        "Metformin có trị tiểu đường không?",
        "sections",
        [
            {
                "turn_type": "drug_to_condition",
                "drugs": ["metformin"],
                "attribute": "chi_dinh",
                "condition_relation": "indication",
                "condition": {"text": "tiểu đường"},
            }
        ],
        id="uses",
    ),
    pytest.param(
        "Bệnh nhân hen bị đau đầu nên dùng thuốc nào?",
        "drug_list",
        [
            {
                "turn_type": "symptom_to_drug",
                "condition_relation": "indication",
                "condition": {"text": "đau đầu"},
                "patient_context": {"comorbidities": ["hen"]},
            }
        ],
        id="drug-list-for-a-patient-s-disease",
    ),
    pytest.param(
        "Phụ nữ có thai bị tăng huyết áp nên dùng thuốc gì?",
        "drug_list",
        [
            {
                "turn_type": "condition_to_drug",
                "condition_relation": "indication",
                "condition": {"text": "tăng huyết áp"},
                "population": "phu_nu_co_thai",
                "patient_context": {"pregnancy": True},
            }
        ],
        id="drug-list-in-pregnancy",
    ),
]


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
