"""hypothesis properties of the pure parts (docs/reliability.md, "Fuzz"): folding, the resolver's
spans, model output into frames. Packing's (never over budget, whole blocks, packed + omitted =
input) is tests/unit/retrieval/test_packing.py::test_packing_invariants."""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest
from duocthu.catalog.artifact import Catalog
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.text import fold, nfc, raw_words, words
from duocthu.models.frame import QueryFrame
from duocthu.settings import Settings
from duocthu.store.edge import EdgeStore
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tests.unit.understanding.turns import run

# Vietnamese letters with their marks, decomposed forms, đ, other scripts, controls and spaces.
VIETNAMESE = "aăâbcdđeêghiklmnoôơpqrstuưvxyàáảãạằắẳẵặầấẩẫậèéẻẽẹềếểễệìíỉĩịòóỏõọồốổỗộờớởỡợùúủũụừứửữựỳýỷỹỵ"
TEXT = st.text(
    alphabet=st.sampled_from(VIETNAMESE + VIETNAMESE.upper() + " ,.?-\t\n\u0301\u0323αЖ中\u200b\x00\x1fİſß"),
    max_size=80,
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20,
)
FRAME_KEYS = sorted(QueryFrame.model_fields)
PROPERTY = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@given(TEXT)
@PROPERTY
def test_folding_is_idempotent_and_only_for_matching(text: str) -> None:
    once = fold(text)
    assert fold(once) == once
    assert fold(nfc(text)) == fold(unicodedata.normalize("NFD", text))
    # What a user sees keeps its marks and case: raw words are NFC runs of the text itself.
    shown = nfc(text)
    assert all(word in shown for word in raw_words(text))
    raw, folded = raw_words(text), words(text)
    if len(raw) == len(folded):  # position for position, they match the same
        assert [fold(w) for w in raw] == [fold(w) for w in folded]


@pytest.fixture(scope="module")
def resolver(sample_index: tuple[EdgeStore, Catalog, Settings]) -> CatalogDrugResolver:
    return CatalogDrugResolver(sample_index[1])


def _names(catalog: Catalog) -> list[str]:
    return sorted({w for drug in catalog.drugs for name in drug.names() for w in name.split()})


@given(data=st.data())
@PROPERTY
def test_the_resolver_never_yields_a_drug_without_a_whole_word_alias_span(
    resolver: CatalogDrugResolver, sample_index: tuple[EdgeStore, Catalog, Settings], data: st.DataObject
) -> None:
    pieces = st.sampled_from(_names(sample_index[1])) | st.sampled_from(
        [fold(n) for n in _names(sample_index[1])]
    )
    text = " ".join(data.draw(st.lists(pieces | TEXT, max_size=8)))
    tokens = words(text)
    for match in resolver.resolve(text):
        span = words(match.matched_text)
        assert tokens[match.start : match.start + len(span)] == span  # whole tokens of the text
        forms = {fold(" ".join(words(n))) for n in resolver.by_id[match.drug_id].names()}
        assert fold(" ".join(span)) in forms or len(span) == 1  # a one-token span may be an acronym


@given(st.dictionaries(st.sampled_from(FRAME_KEYS), JSON, max_size=8) | JSON)
@PROPERTY
def test_any_model_json_validates_or_is_a_validation_error(data: Any) -> None:
    try:
        frame = QueryFrame.model_validate(data)
    except ValidationError:
        return
    assert isinstance(frame, QueryFrame)


@given(st.dictionaries(st.sampled_from(FRAME_KEYS), JSON, max_size=8) | JSON)
@PROPERTY
def test_any_model_json_through_understanding_is_a_frame(resolver: CatalogDrugResolver, data: Any) -> None:
    frame = run(resolver, "Chống chỉ định của ibuprofen?", output=data)
    assert isinstance(frame, QueryFrame)  # a malformed answer is a frame with its system_error
    assert frame.system_error is None or frame.drugs == ()
