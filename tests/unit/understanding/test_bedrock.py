"""The Bedrock Converse provider, pinned with botocore Stubber (moto has no converse): the request
(model id, tool config, the frame's schema, forced tool choice), the response parsed into a frame,
throttling / access / timeout / deadline faults and malformed output; the prompt's four blocks;
provider selection from settings."""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from typing import Any

import pytest
from botocore.exceptions import ReadTimeoutError
from botocore.stub import ANY, Stubber
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline
from duocthu.core.sections import SECTION_KEYS
from duocthu.models.frame import QueryFrame
from duocthu.providers import bedrock as bedrock_module
from duocthu.providers.bedrock import DeadlineExceeded, _client
from duocthu.settings import DEFAULT_UNDERSTANDING_MODEL_ID, Settings
from duocthu.understanding.bedrock import BedrockFrameProvider, parse_tool_input
from duocthu.understanding.candidates import Turn, tagged_turn
from duocthu.understanding.pipeline import understand_turn
from duocthu.understanding.prompt import (
    TOOL_NAME,
    frame_tool_schema,
    known_facts_block,
    sections_block,
    tool_config,
    user_message,
)
from duocthu.understanding.providers import frame_provider
from duocthu.understanding.rules.provider import OfflineFrameProvider
from duocthu.understanding.tags import MessageReader

from tests.unit.understanding.bedrock_converse import converse_request, tool_use

MODEL = "apac.anthropic.claude-3-5-sonnet-20241022-v2:0"


def _turn(
    resolver: CatalogDrugResolver,
    message: str,
    history: tuple[str, ...] = (),
    prior: QueryFrame | None = None,
) -> Turn:
    return tagged_turn(MessageReader(resolver), message, history, prior)


def _provider(client: Any, timeouts: list[int] | None = None) -> BedrockFrameProvider:
    def client_for(read_timeout_s: int) -> Any:
        if timeouts is not None:
            timeouts.append(read_timeout_s)
        return client

    return BedrockFrameProvider(client_for, MODEL, max_tokens=700, read_timeout_s=20)


# --- The request and the response --------------------------------------------------------------


def test_converse_request_is_pinned_and_the_tool_input_becomes_a_frame(
    resolver: CatalogDrugResolver, stubbed: tuple[Any, Stubber]
) -> None:
    client, stubber = stubbed
    # Given a turn about ibuprofen's precautions
    turn = _turn(resolver, "Ibuprofen cần thận trọng gì?")
    expected = converse_request(turn, MODEL, 700)
    answer = {
        "turn_type": "drug_attribute",
        "drugs": ["ibuprofen"],
        "attribute": "than_trong",
        "section_overview": True,
    }
    stubber.add_response("converse", tool_use(answer), expected)
    # When the provider runs inside the pipeline
    frame = understand_turn(turn, _provider(client), Deadline.after(10))
    # Then the request matched exactly (Stubber also validates it against the service model)
    assert (frame.turn_type, frame.drugs, frame.attribute) == ("drug_attribute", ("ibuprofen",), "than_trong")
    assert frame.system_error is None and frame.raw == answer


def test_a_drug_the_model_invents_is_unknown(
    resolver: CatalogDrugResolver, stubbed: tuple[Any, Stubber]
) -> None:
    client, stubber = stubbed
    turn = _turn(resolver, "Aspirinol có tác dụng phụ gì?")
    answer = {
        "turn_type": "drug_attribute",
        "drugs": ["acid_acetylsalicylic"],
        "attribute": "tac_dung_khong_mong_muon",
    }
    stubber.add_response(
        "converse",
        tool_use(answer),
        {"modelId": MODEL, **{k: ANY for k in ("system", "messages", "toolConfig", "inferenceConfig")}},
    )
    frame = understand_turn(turn, _provider(client), Deadline.after(10))
    assert frame.drugs == () and frame.unknown_drugs == ("acid_acetylsalicylic",)


def _any_request() -> dict[str, Any]:
    return {"modelId": MODEL, "system": ANY, "messages": ANY, "toolConfig": ANY, "inferenceConfig": ANY}


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("ThrottlingException", 429),
        ("ServiceUnavailableException", 503),
        ("ModelTimeoutException", 408),
        ("AccessDeniedException", 403),
        ("ResourceNotFoundException", 404),
    ],
)
def test_provider_faults_become_provider_unavailable(
    resolver: CatalogDrugResolver, stubbed: tuple[Any, Stubber], code: str, status: int
) -> None:
    client, stubber = stubbed
    stubber.add_client_error(
        "converse", service_error_code=code, http_status_code=status, expected_params=_any_request()
    )
    frame = understand_turn(_turn(resolver, "Liều ibuprofen?"), _provider(client), Deadline.after(10))
    assert frame.system_error == "understanding_provider_unavailable"
    assert frame.turn_type == "out_of_scope" and frame.needs_clarify and frame.drugs == ()


@pytest.mark.parametrize(
    "response",
    [
        {  # text instead of the forced tool
            "output": {
                "message": {"role": "assistant", "content": [{"text": "Ibuprofen cần thận trọng..."}]}
            },
            "stopReason": "end_turn",
            "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
            "metrics": {"latencyMs": 1},
        },
        tool_use({"turn_type": "drug_attribute"}, stop="max_tokens"),  # cut off
        tool_use(["not", "an", "object"]),
    ],
)
def test_unusable_output_is_malformed(
    resolver: CatalogDrugResolver, stubbed: tuple[Any, Stubber], response: dict[str, Any]
) -> None:
    client, stubber = stubbed
    stubber.add_response("converse", response, _any_request())
    frame = understand_turn(_turn(resolver, "Liều ibuprofen?"), _provider(client), Deadline.after(10))
    assert frame.system_error == "understanding_malformed_output"


def test_a_read_timeout_is_provider_unavailable(resolver: CatalogDrugResolver) -> None:
    class TimingOut:
        def converse(self, **_: Any) -> Any:
            raise ReadTimeoutError(endpoint_url="https://bedrock-runtime.ap-southeast-1.amazonaws.com")

    frame = understand_turn(_turn(resolver, "Liều ibuprofen?"), _provider(TimingOut()), Deadline.after(10))
    assert frame.system_error == "understanding_provider_unavailable"


# --- Time ------------------------------------------------------------------------------------------


def test_no_call_when_the_deadline_leaves_no_time(
    resolver: CatalogDrugResolver, stubbed: tuple[Any, Stubber]
) -> None:
    client, _ = stubbed  # no response queued: a call would fail the Stubber
    frame = understand_turn(_turn(resolver, "Liều ibuprofen?"), _provider(client), Deadline.after(0.5))
    assert frame.system_error == "understanding_provider_unavailable"


def test_the_read_timeout_is_capped_by_the_deadline(
    resolver: CatalogDrugResolver, stubbed: tuple[Any, Stubber]
) -> None:
    client, stubber = stubbed
    stubber.add_response("converse", tool_use({"turn_type": "smalltalk"}), _any_request())
    timeouts: list[int] = []
    _provider(client, timeouts).propose(_turn(resolver, "Xin chào"), Deadline.after(6.5))
    assert timeouts == [6]  # never the configured 20 s when 6.5 s are left


def test_no_attempt_starts_after_the_deadline(aws_env: None) -> None:
    # Given a real client (before-send hook registered) and a deadline that has passed
    client = _client("ap-southeast-1", 1.0, 5.0, "standard", 3)
    token = bedrock_module._TURN_DEADLINE.set(Deadline(time.monotonic() - 1))
    try:
        # Then the attempt is refused before anything is sent
        with pytest.raises(DeadlineExceeded):
            client.converse(modelId=MODEL, messages=[{"role": "user", "content": [{"text": "x"}]}])
    finally:
        bedrock_module._TURN_DEADLINE.reset(token)


def test_clients_take_timeouts_and_retries_from_settings(aws_env: None) -> None:
    settings = Settings.from_env(
        {
            "UNDERSTANDING_MODEL_ID": MODEL,
            "BEDROCK_REGION": "ap-southeast-1",
            "BEDROCK_CONNECT_TIMEOUT_S": "1.5",
            "BEDROCK_READ_TIMEOUT_S": "12",
            "BEDROCK_MAX_ATTEMPTS": "2",
            "BEDROCK_RETRY_MODE": "adaptive",
        }
    )
    provider = frame_provider(settings)
    assert isinstance(provider, BedrockFrameProvider) and provider.model_id == MODEL
    config = provider.client_for(7).meta.config
    assert (config.region_name, config.connect_timeout, config.read_timeout) == ("ap-southeast-1", 1.5, 7.0)
    assert config.retries == {"mode": "adaptive", "total_max_attempts": 2}
    assert provider.client_for(7) is provider.client_for(7)  # one client per container and bucket


@dataclass
class _Context:
    remaining_ms: int

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


def test_the_turn_deadline_is_the_lambda_remaining_time_minus_a_margin() -> None:
    deadline = Deadline.for_invocation(_Context(10_000), margin_ms=1_500, fallback_s=99)
    assert 8.3 < deadline.remaining_s() <= 8.5
    assert Deadline.for_invocation(_Context(1_000), margin_ms=1_500, fallback_s=99).remaining_s() == 0
    assert 98 < Deadline.for_invocation(None, margin_ms=1_500, fallback_s=99).remaining_s() <= 99


# --- Selection ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "kind", "model"),
    [
        ({}, "offline", None),
        ({"UNDERSTANDING_MODEL_ID": MODEL}, "bedrock", MODEL),
        ({"UNDERSTANDING_PROVIDER": "bedrock"}, "bedrock", DEFAULT_UNDERSTANDING_MODEL_ID),
        ({"UNDERSTANDING_PROVIDER": "offline", "UNDERSTANDING_MODEL_ID": MODEL}, "offline", None),
    ],
)
def test_provider_selection_in_one_place(
    aws_env: None, env: dict[str, str], kind: str, model: str | None
) -> None:
    provider = frame_provider(Settings.from_env(env))
    assert provider.name == kind
    if model:
        assert isinstance(provider, BedrockFrameProvider) and provider.model_id == model
    else:
        assert isinstance(provider, OfflineFrameProvider)


def test_parse_tool_input_takes_only_the_forced_tool() -> None:
    response = tool_use({"turn_type": "smalltalk"})
    assert parse_tool_input(response) == {"turn_type": "smalltalk"}
    other = copy.deepcopy(response)
    other["output"]["message"]["content"][0]["toolUse"]["name"] = "something_else"
    with pytest.raises(Exception, match="no record_query_frame call"):
        parse_tool_input(other)


# --- The prompt ------------------------------------------------------------------------------------


def test_the_prompt_has_four_blocks_in_order(resolver: CatalogDrugResolver) -> None:
    prior = QueryFrame(
        turn_type="dosing_calc", drugs=("paracetamol",), attribute="lieu_luong_va_cach_dung", weight_kg=12
    )
    history = ("Paracetamol cho trẻ 12 kg liều bao nhiêu?",)
    turn = _turn(resolver, "Nếu bé 15 kg thì sao?", history, prior)
    text = user_message(turn.message, history, prior, turn.candidates)
    order = [
        text.index(h)
        for h in ("CANDIDATE DRUGS", "SECTION KEYS", "KNOWN FACTS", "EARLIER TURNS", "CURRENT TURN")
    ]
    assert order == sorted(order)
    assert "paracetamol\tParacetamol" in text  # the drug_id's own name form first
    assert "weight_kg: 12.0" in known_facts_block(prior, turn.candidates)
    assert text.index(history[0]) < text.index("CURRENT TURN: Nếu bé 15 kg thì sao?")


def test_the_section_block_spells_out_than_trong_against_chong_chi_dinh() -> None:
    block = sections_block()
    assert all(f"\n{key}\t" in block for key in SECTION_KEYS)
    assert (
        "than_trong vs chong_chi_dinh" in block
        and "MAY be used WITH CARE" in block
        and "NOT be used" in block
    )


def test_the_tool_schema_is_the_frame_schema_for_the_model() -> None:
    schema = frame_tool_schema()
    text = str(schema)
    assert "$ref" not in text and "$defs" not in text  # self-contained
    assert "system_error" not in schema["properties"] and "raw" not in schema["properties"]
    assert set(schema["properties"]) == set(QueryFrame.model_fields) - {"system_error", "raw", "indication"}
    assert schema["properties"]["attribute"]["anyOf"][0]["enum"] == list(SECTION_KEYS)
    assert schema["required"] == ["turn_type"]
    assert tool_config()["toolChoice"] == {"tool": {"name": TOOL_NAME}}
    # every value a model can produce from the schema validates as a frame
    assert QueryFrame.model_validate({"turn_type": "smalltalk", "patient_context": {}, "condition": None})
