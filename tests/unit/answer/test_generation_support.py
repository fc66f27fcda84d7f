"""The grounded answer is untrusted: each sentence must be supported by the parts it cites (its
numbers, doses with their units, and its content words), else the extractive answer is shown."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from duocthu.answer.generation import BedrockAnswerGenerator
from duocthu.answer.support import quantities, unsupported
from duocthu.models.evidence import EvidenceItem
from duocthu.retrieval.decision import decide

from tests.factories import make_evidence

MODEL = "apac.anthropic.claude-3-5-sonnet-20241022-v2:0"


CONTRA = make_evidence("Trẻ em dưới 2 tuổi. Loét dạ dày tá tràng tiến triển.")
DOSE = make_evidence(
    "Người lớn: uống 200 - 400 mg mỗi 4 - 6 giờ, tối đa 1,2 g/ngày.", "lieu_luong_va_cach_dung"
)


@pytest.mark.parametrize(
    ("text", "evidence", "problem"),
    [
        ("Ibuprofen chống chỉ định cho trẻ em dưới 2 tuổi [1].", [CONTRA], None),
        ("Chống chỉ định khi loét dạ dày tá tràng tiến triển [1].", [CONTRA], None),
        # the reproducer: a valid marker on a sentence the evidence contradicts
        ("Ibuprofen an toàn cho trẻ em ở mọi lứa tuổi [1].", [CONTRA], "unsupported_wording"),
        ("Ibuprofen không chống chỉ định cho trẻ em [1].", [CONTRA], "unsupported_wording"),
        ("Chống chỉ định cho trẻ em dưới 12 tuổi [1].", [CONTRA], "unsupported_quantity"),
        ("Người lớn uống 200 - 400 mg mỗi 4 - 6 giờ [1].", [DOSE], None),
        ("Tối đa 1.2 g/ngày [1].", [DOSE], None),  # 1,2 and 1.2 are one number
        ("Người lớn uống 800 mg mỗi 4 giờ [1].", [DOSE], "unsupported_quantity"),
        ("Người lớn uống 200 g [1].", [DOSE], "unsupported_quantity"),  # the number, with another unit
        # a sentence is checked against the part it cites, not against every part
        ("Trẻ em dưới 2 tuổi [2].", [CONTRA, DOSE], "unsupported_quantity"),
    ],
)
def test_support_check(text: str, evidence: list[EvidenceItem], problem: str | None) -> None:
    assert unsupported(text, evidence) == problem


def test_quantities_keep_the_unit_that_follows() -> None:
    assert quantities("uống 500 mg, 2 lần") == {"500", "500 mg", "2", "2 lần"}


def test_an_unsupported_sentence_falls_back_to_the_extractive_answer() -> None:
    client = boto3.client(
        "bedrock-runtime", region_name="ap-southeast-1", aws_access_key_id="x", aws_secret_access_key="x"
    )
    reply: dict[str, Any] = {
        "output": {
            "message": {
                "role": "assistant",
                "content": [{"text": "Ibuprofen an toàn cho trẻ em ở mọi lứa tuổi [1]."}],
            }
        },
        "stopReason": "end_turn",
        "usage": {"inputTokens": 10, "outputTokens": 10, "totalTokens": 20},
        "metrics": {"latencyMs": 100},
    }
    with Stubber(client) as stubber:
        stubber.add_response("converse", reply)
        answer = BedrockAnswerGenerator(client, MODEL).generate("q", decide([CONTRA]), sample_data=False)
    assert (answer.method, answer.fallback_reason) == ("extractive", "unsupported_wording")
    assert "an toàn" not in answer.text and "Trẻ em dưới 2 tuổi." in answer.text


def test_the_prompt_s_own_words_for_silence_are_free_but_not_its_negation() -> None:
    assert unsupported("Dược thư không có thông tin này [1].", [CONTRA]) is None
    assert unsupported("Ibuprofen không loét dạ dày [1].", [CONTRA]) == "unsupported_wording"
