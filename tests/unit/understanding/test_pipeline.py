"""The understanding pipeline with a scripted provider: validation and fail-closed rows of
reference 08, subject scope and the non-human guard before a clarifying question."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline
from duocthu.core.errors import MalformedOutput, ProviderUnavailable
from duocthu.understanding.pipeline import _resolve_id, understand

from tests.unit.understanding.turns import Scripted, run


def test_provider_unavailable_is_a_system_error_frame(
    resolver: CatalogDrugResolver, caplog: pytest.LogCaptureFixture
) -> None:
    # Given a provider that is throttled
    with caplog.at_level(logging.ERROR):
        frame = run(
            resolver, "Chống chỉ định của ibuprofen?", error=ProviderUnavailable("ThrottlingException")
        )
    # Then the turn fails closed, says why, and the real exception is logged
    assert frame.turn_type == "out_of_scope" and frame.needs_clarify
    assert frame.system_error == "understanding_provider_unavailable"
    assert frame.drugs == () and frame.attribute is None
    assert any("ThrottlingException" in r.getMessage() and r.exc_info for r in caplog.records)


@pytest.mark.parametrize(
    ("output", "error"),
    [
        (None, MalformedOutput("no tool call")),
        ("not an object", None),
        (["a", "list"], None),
        ({"turn_type": "drug_attribute", "drugs": {"not": "a list"}}, None),
    ],
)
def test_unusable_output_is_malformed(
    resolver: CatalogDrugResolver, output: Any, error: Exception | None
) -> None:
    frame = run(resolver, "Chống chỉ định của ibuprofen?", output=output, error=error)
    assert frame.system_error == "understanding_malformed_output"
    assert frame.turn_type == "out_of_scope" and frame.drugs == ()


@pytest.mark.parametrize(
    ("output", "field", "expected"),
    [
        ({"turn_type": "recommend", "drugs": ["ibuprofen"]}, "turn_type", "drug_attribute"),
        ({"turn_type": "recommend"}, "turn_type", "out_of_scope"),
        (
            {"turn_type": "drug_attribute", "drugs": ["ibuprofen"], "attribute": "side_effects"},
            "attribute",
            None,
        ),
        ({"turn_type": "dosing_calc", "drugs": ["ibuprofen"], "population": "infant"}, "population", None),
        ({"turn_type": "dosing_calc", "drugs": ["ibuprofen"], "route": "oral"}, "route", None),
        ({"turn_type": "dosing_calc", "drugs": ["ibuprofen"], "weight_kg": 0}, "weight_kg", None),
        ({"turn_type": "dosing_calc", "drugs": ["ibuprofen"], "weight_kg": 501}, "weight_kg", None),
        ({"turn_type": "dosing_calc", "drugs": ["ibuprofen"], "weight_kg": 12}, "weight_kg", 12.0),
    ],
)
def test_out_of_vocabulary_output_is_dropped(
    resolver: CatalogDrugResolver, output: dict[str, Any], field: str, expected: Any
) -> None:
    frame = run(resolver, "ibuprofen", output=output)
    assert getattr(frame, field) == expected and frame.system_error is None


def test_a_drug_outside_the_shown_set_is_unknown_never_substituted(resolver: CatalogDrugResolver) -> None:
    # Given a question naming an invented drug, and a model that maps it onto a real one
    output = {"turn_type": "drug_attribute", "drugs": ["acid_acetylsalicylic"], "attribute": "chong_chi_dinh"}
    frame = run(resolver, "Chống chỉ định của aspirinol?", output=output)
    # Then the real drug was never a candidate, so it becomes an unknown name, not a drug
    assert frame.drugs == () and frame.unknown_drugs == ("acid_acetylsalicylic",)


def test_resolve_id_accepts_only_shown_ids_in_either_form() -> None:
    shown = ("acid_acetylsalicylic", "ibuprofen")
    assert _resolve_id("acid acetylsalicylic", shown) == "acid_acetylsalicylic"
    assert _resolve_id("Acid_Acetylsalicylic", shown) == "acid_acetylsalicylic"
    assert _resolve_id("ibuprofen", shown) == "ibuprofen"
    assert _resolve_id("aspirin", shown) is None  # an alias is not an id
    assert _resolve_id("paracetamol", shown) is None  # a real drug that was not shown
    assert _resolve_id("ibuprofenn", shown) is None  # never the nearest id


def test_quick_replies_are_bounded(resolver: CatalogDrugResolver) -> None:
    replies = ["Amoxicilin", "amoxicilin", "x" * 41, "A", "B", "C", "D"]
    output = {"turn_type": "out_of_scope", "needs_clarify": True, "quick_replies": replies}
    frame = run(resolver, "thuốc này", output=output)
    assert frame.quick_replies == ("Amoxicilin", "A", "B", "C")


def test_the_model_cannot_set_system_error_and_a_bad_field_is_dropped(resolver: CatalogDrugResolver) -> None:
    output = {
        "turn_type": "drug_attribute",
        "drugs": ["ibuprofen"],
        "attribute": "than_trong",
        "system_error": "store_unavailable",
        "patient_context": "suy thận",  # wrong shape: dropped, the rest of the frame stands
    }
    frame = run(resolver, "Ibuprofen cần thận trọng gì?", output=output)
    assert frame.system_error is None and frame.attribute == "than_trong" and frame.patient_context.is_empty()
    assert frame.raw == output  # the model's own output is kept (excluded from equality)


def test_a_non_human_turn_never_reaches_the_provider(resolver: CatalogDrugResolver) -> None:
    provider = Scripted(error=AssertionError("the provider must not be called"))
    frame = understand("Liều paracetamol cho chó 10 kg?", resolver, provider, Deadline.after(5))
    assert frame.turn_type == "out_of_scope" and not frame.needs_clarify and frame.drugs == ()
    assert provider.turns == []


def test_a_caller_claim_narrows_scope(resolver: CatalogDrugResolver) -> None:
    provider = Scripted(error=AssertionError("the provider must not be called"))
    frame = understand("Liều paracetamol?", resolver, provider, Deadline.after(5), claimed_scope="non_human")
    assert frame.turn_type == "out_of_scope" and provider.turns == []


def test_no_clarifying_question_about_an_animal(resolver: CatalogDrugResolver) -> None:
    # Given a conversation about a dog and a follow-up the model would ask about
    output = {"turn_type": "drug_attribute", "needs_clarify": True, "clarify_reason": "Thuốc nào?"}
    frame = run(resolver, "Vậy liều bao nhiêu?", output=output, history=("Con chó nhà tôi nặng 8 kg",))
    # Then the guard answers out of scope instead of asking
    assert frame.turn_type == "out_of_scope" and not frame.needs_clarify
