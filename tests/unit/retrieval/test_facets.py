"""The stage-2 facet queries (reference 09 §6) for a patient: the clinical-anchor table, each
facet's query source and sections, and what a part must name to count. No store."""

from __future__ import annotations

import pytest
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.text import words
from duocthu.retrieval.facets import FACET_SECTIONS, Anchor, FacetQuery, anchor_table

from tests.unit.retrieval.patients import names_resolver, patient


@pytest.fixture(scope="module")
def resolver() -> CatalogDrugResolver:
    return names_resolver()


# -- the anchor table -------------------------------------------------------------------------


def test_the_anchor_table_counts_concepts_never_generic_words() -> None:
    table = anchor_table()
    # Given the table's generic words: no anchor is made of them alone
    assert {"chức", "năng", "suy", "nặng"} <= table.generic
    for concept, phrases in table.concepts.items():
        assert all(set(words(p)) - table.generic for p in phrases), concept
    # Then a kidney term names the kidney concept, typed with or without marks, and nothing else
    assert table.concepts_in("suy giảm chức năng thận") == {"renal"}
    assert table.concepts_in("suy than nang") == {"renal"}
    assert table.concepts_in("suy giảm chức năng gan") == {"hepatic"}
    # and a generic phrase, or "thận trọng" (caution, whose first word is "thận"), names none
    assert table.concepts_in("chức năng") == frozenset()
    assert table.concepts_in("thận trọng") == frozenset()
    assert table.by_population["suy_than"] == "renal"
    # A term the table does not know anchors as itself, generic words trimmed from its ends
    assert table.own_phrase("tiền sử lupus ban đỏ hệ thống nặng") == "lupus ban đỏ hệ thống"
    assert table.own_phrase("bệnh nặng") is None


# -- each facet's query source and sections ---------------------------------------------------


def test_each_facet_has_its_own_query_source_and_sections(resolver: CatalogDrugResolver) -> None:
    # Given a patient with kidney disease, a condition, an age and a current medicine
    profile = patient(
        renal_function="bệnh thận mạn",
        comorbidities=["hen phế quản"],
        current_medications=["Pelmor forte"],
        population="nguoi_cao_tuoi",
        age_text="70 tuổi",
        pregnancy=True,
    )
    queries = {q.facet: q for q in profile.facet_queries(resolver, "dronaxin")}
    # Then the interaction query is the medicine's catalogue names, and only those
    interaction = queries["interaction"]
    # in the interaction section and the contraindications ("Phối hợp với thuốc chống đông ...")
    assert interaction.sections == (*FACET_SECTIONS["interaction"], "chong_chi_dinh")
    assert interaction.route == "read"
    assert [a.key for a in interaction.anchors] == ["pelmorin"]
    assert {"Pelmorin", "Pelmor forte"} <= set(interaction.anchors[0].phrases)
    assert "thận" not in words(interaction.text) and "hen" not in words(interaction.text)
    # the warnings query is the patient's conditions and state, never a medicine
    warnings = queries["warnings"]
    assert warnings.sections == ("chong_chi_dinh", "than_trong")
    assert {a.key for a in warnings.anchors} == {"renal", "asthma", "elderly", "pregnancy"}
    assert "pelmorin" not in words(warnings.text)
    # the dosage query is organ function and age band only: no condition, no pregnancy, no medicine
    dosage = queries["dosage"]
    assert dosage.sections == ("lieu_luong_va_cach_dung",)
    assert {a.key for a in dosage.anchors} == {"renal", "elderly"}
    assert not {"pelmorin", "hen", "thai"} & set(words(dosage.text))
    # and pregnancy goes by the section route
    assert queries["pregnancy"].route == "section"
    assert queries["pregnancy"].sections == ("thoi_ky_mang_thai",)
    assert "breastfeeding" not in queries


def warning_on(phrase: str) -> FacetQuery:
    anchor = Anchor(f"term:{phrase}", (phrase,))
    return FacetQuery("warnings", FACET_SECTIONS["warnings"], "lexical", (phrase,), (anchor,))


def test_a_condition_inside_a_term_that_is_not_it_is_no_warning() -> None:
    # an anaemic patient: ibuprofen's "bệnh tim thiếu máu cục bộ" is ischaemia, nothing about them
    anaemia = warning_on("thiếu máu")
    assert anaemia.named_in("Thận trọng ở người suy tim nhẹ, bệnh tim thiếu máu cục bộ.") == frozenset()
    assert anaemia.named_in("Thiếu máu cục bộ; thiếu máu nặng chưa điều trị.") == {"term:thiếu máu"}
    assert warning_on("phù").named_in("Dùng khi thuốc khác không phù hợp.") == frozenset()  # an ordinary word
