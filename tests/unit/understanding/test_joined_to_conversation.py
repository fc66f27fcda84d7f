"""A follow-up (or a later clause) naming one other drug with words asking about taking it with
something ("uống chung metformin ok ko") asks it with the conversation's drug
(`understanding.rules.together._joined_to_conversation`); a new drug asked of on its own stays
its own question."""

from __future__ import annotations

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.understanding.pipeline import understand_offline


def test_taken_with_the_conversation_s_drug(resolver: CatalogDrugResolver) -> None:
    history = ["Diamicron MR khởi đầu mấy mg?"]
    frame = understand_offline("uống chung metformin ok ko", resolver, history=history)
    assert frame.turn_type == "interaction" and set(frame.drugs) == {"gliclazid", "metformin"}


def test_a_new_drug_asked_of_alone_replaces_nothing(resolver: CatalogDrugResolver) -> None:
    frame = understand_offline(
        "metformin liều tối đa bao nhiêu?", resolver, history=["Diamicron MR khởi đầu mấy mg?"]
    )
    assert frame.drugs == ("metformin",)
