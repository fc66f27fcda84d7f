import pytest
from duocthu.core.vocabulary import TURN_TYPES
from duocthu.models.frame import MAX_QUICK_REPLIES, PatientContext, QueryFrame
from pydantic import ValidationError


def test_minimal_frame_defaults() -> None:
    frame = QueryFrame(turn_type="drug_attribute", drugs=["amoxicilin"], attribute="chong_chi_dinh")
    assert frame.drugs == ("amoxicilin",)
    assert frame.patient_context.is_empty()
    assert frame.context_action == "none" and frame.system_error is None


@pytest.mark.parametrize(
    ("drugs", "expected"), [(["ibuprofen"], "drug_attribute"), ([], "out_of_scope"), (None, "out_of_scope")]
)
def test_unknown_turn_type_falls_back(drugs: list[str] | None, expected: str) -> None:
    assert QueryFrame.model_validate({"turn_type": "recommend", "drugs": drugs}).turn_type == expected


def test_all_ten_turn_types_accepted() -> None:
    assert len(TURN_TYPES) == 10
    for turn_type in TURN_TYPES:
        assert QueryFrame.model_validate({"turn_type": turn_type}).turn_type == turn_type


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("attribute", "side_effects", None),
        ("attribute", "than_trong", "than_trong"),
        ("population", "tre_so_sinh", None),
        ("population", "suy_than", "suy_than"),
        ("route", "uong", "uong"),
        ("route", "oral", None),
        ("weight_kg", 0, None),
        ("weight_kg", -3, None),
        ("weight_kg", 500.1, None),
        ("weight_kg", "12", 12.0),
        ("weight_kg", 500, 500.0),
        ("weight_kg", "nặng", None),
        ("condition_relation", "cause", "unknown"),
    ],
)
def test_out_of_vocabulary_values_become_none(field: str, value: object, expected: object) -> None:
    frame = QueryFrame.model_validate({"turn_type": "dosing_calc", field: value})
    assert getattr(frame, field) == expected


def test_quick_replies_are_bounded_and_deduplicated() -> None:
    replies = ["Amoxicilin", "amoxicilin", " Cefuroxim ", "x" * 41, "A", "B", "C"]
    frame = QueryFrame.model_validate({"turn_type": "out_of_scope", "quick_replies": replies})
    assert frame.quick_replies == ("Amoxicilin", "Cefuroxim", "A", "B")
    assert len(frame.quick_replies) == MAX_QUICK_REPLIES


def test_system_error_is_closed() -> None:
    assert (
        QueryFrame(turn_type="out_of_scope", system_error="store_unavailable").system_error
        == "store_unavailable"
    )
    with pytest.raises(ValidationError):
        QueryFrame.model_validate({"turn_type": "out_of_scope", "system_error": "boom"})


def test_drug_ids_must_be_slugs() -> None:
    with pytest.raises(ValidationError):
        QueryFrame.model_validate({"turn_type": "drug_attribute", "drugs": ["Acid acetylsalicylic"]})


def test_raw_is_excluded_from_equality_and_dumps() -> None:
    a = QueryFrame(turn_type="smalltalk", raw={"turn_type": "smalltalk"})
    b = QueryFrame(turn_type="smalltalk")
    assert a == b
    assert "raw" not in a.model_dump()


def test_patient_context_cleans_lists() -> None:
    ctx = PatientContext.model_validate(
        {"current_medications": ["warfarin", " warfarin", ""], "pregnancy": True}
    )
    assert ctx.current_medications == ("warfarin",)
    assert not ctx.is_empty()


def test_frame_json_schema_has_every_field() -> None:
    schema = QueryFrame.model_json_schema()
    for field in ("turn_type", "drugs", "unknown_drugs", "patient_context", "condition", "quick_replies"):
        assert field in schema["properties"]
