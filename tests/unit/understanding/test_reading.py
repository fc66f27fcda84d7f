"""A turn's reading: what its words say beyond the frame, read once and handed on with it."""

from __future__ import annotations

import pytest
from duocthu.catalog.artifact import Catalog, CatalogDrug
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.frame import QueryFrame
from duocthu.understanding.reading import asks_which_drug, joined_unknown_names, turn_reading
from duocthu.understanding.tags import tag_message


@pytest.fixture(scope="module")
def resolver() -> CatalogDrugResolver:
    drugs = (CatalogDrug(drug_id="halvorin", title="Halvorin", aliases=("Halvor",)),)
    return CatalogDrugResolver(Catalog(corpus_hash="h", drugs=drugs))


def test_an_unknown_name_counts_beside_a_drug_only_when_the_question_joins_them(
    resolver: CatalogDrugResolver,
) -> None:
    def joined(question: str, *unknown: str) -> tuple[str, ...]:
        frame = QueryFrame(turn_type="interaction", drugs=("halvorin",), unknown_drugs=unknown)
        return joined_unknown_names(tag_message(question, resolver), frame)

    assert joined("Halvorin và tramadol có tương tác không?", "tramadol") == ("tramadol",)
    assert joined("tramadol với Halvor dùng chung được không", "tramadol") == ("tramadol",)
    assert joined("Halvorin + codein liều dùng?", "codein") == ("codein",)
    # an abbreviation or a typo elsewhere in the question is no medicine asked beside it
    assert joined("Halvorin uống với nước bưởi có sao khôg", "khôg") == ()
    assert joined("Halvorin + rượu bia nguy hiểm ntn", "ntn") == ()


def test_a_reading_carries_what_retrieval_and_the_answer_need(resolver: CatalogDrugResolver) -> None:
    # Given an interaction question that joins a medicine the catalogue lacks to one it has
    frame = QueryFrame(turn_type="interaction", drugs=("halvorin",), unknown_drugs=("tramadol",))
    # When the turn is read
    reading = turn_reading(
        tag_message("Halvorin và tramadol dùng chung được không?", resolver), frame, resolver
    )
    # Then the reading holds the text, the yes/no form and the joined name; no class is asked
    assert reading.text == "Halvorin và tramadol dùng chung được không?"
    assert reading.yes_or_no
    assert reading.joined_unknown_names == ("tramadol",)
    assert reading.asked_class is None


def test_a_class_is_read_only_for_a_which_drugs_relation(resolver: CatalogDrugResolver) -> None:
    relation = QueryFrame(turn_type="condition_relation", condition_relation="adverse_effect")
    assert (
        turn_reading(
            tag_message("Thuốc giảm đau nào gây loét dạ dày?", resolver), relation, resolver
        ).asked_class
        == "Thuốc giảm đau"
    )
    other = QueryFrame(turn_type="drug_attribute", drugs=("halvorin",), attribute="chi_dinh")
    assert (
        turn_reading(tag_message("Thuốc giảm đau Halvorin trị gì?", resolver), other, resolver).asked_class
        is None
    )


def test_which_drugs_is_read_as_typed_with_or_without_marks() -> None:
    assert asks_which_drug("Những thuốc nào tương tác với warfarin?")
    assert asks_which_drug("thuoc nao tuong tac voi warfarin")  # typed without marks
    assert not asks_which_drug("thuốc bổ não có tác dụng gì?")  # "não" (brain) as typed is no "nào"
    assert not asks_which_drug("warfarin tương tác gì?")
