"""Shorthand names (data/drug_shorthands.tsv): each resolves to exactly its drug in the sample
catalogue, and none is another drug's name or a common word. One that is ambiguous in a catalogue
is left out of its alias index; the table is part of the index rules (`rules_digest`)."""

from __future__ import annotations

import pytest
from duocthu.catalog.artifact import Catalog, CatalogDrug
from duocthu.catalog.names import alias_kind, common_words, plain_word
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.catalog.shorthands import brand_names, prefix_names, shorthand_names
from duocthu.core.tables import table_records
from duocthu.core.text import fold, words
from duocthu.models.source import Monograph

ROWS = [(r["shorthand"], r["drug_id"]) for r in table_records("drug_shorthands.tsv")]


@pytest.fixture(scope="module")
def catalog(sample_records: list[Monograph]) -> Catalog:
    return Catalog.from_records(sample_records, corpus_hash="test")


def test_the_table_names_paracetamols_shorthands() -> None:
    assert {"PCM", "para"} <= {short for short, drug in ROWS if drug == "paracetamol"}


@pytest.mark.parametrize(("short", "drug_id"), ROWS)
def test_each_shorthand_resolves_to_exactly_its_drug(catalog: Catalog, short: str, drug_id: str) -> None:
    resolver = CatalogDrugResolver(catalog)
    for text in (short, short.lower(), short.upper(), f"liều {short} cho người lớn?"):
        assert [m.drug_id for m in resolver.resolve(text)] == [drug_id], text


@pytest.mark.parametrize(("short", "drug_id"), ROWS)
def test_no_shorthand_is_another_drugs_name_or_a_common_word(
    catalog: Catalog, short: str, drug_id: str
) -> None:
    key = " ".join(fold(t) for t in words(short))
    others = {
        " ".join(fold(t) for t in words(name))
        for d in catalog.drugs
        if d.drug_id != drug_id
        for name in d.names()
    }
    assert key not in others
    assert not plain_word(key) and key not in common_words() and alias_kind(short) != "word"


def test_a_shorthand_another_drug_is_named_by_is_left_out() -> None:
    names = {"paracetamol": ("Paracetamol",), "pcm_other": ("PCM",)}
    assert "PCM" not in shorthand_names(names).get("paracetamol", ())
    assert "para" in shorthand_names(names)["paracetamol"]
    assert shorthand_names({"warfarin": ("Warfarin",)}) == {}  # its drug is not in the catalogue


def test_the_alias_index_holds_the_shorthands(catalog: Catalog) -> None:
    drug = CatalogDrug(drug_id="paracetamol", title="Paracetamol")
    index = Catalog(corpus_hash="x", drugs=(drug,)).with_alias_index().alias_index
    assert index is not None and index.current_for((drug,))
    assert "pcm" in index.exact_keys or "PCM" in index.acronyms


def test_a_prefix_of_one_drug_alone_is_its_ward_shorthand(catalog: Catalog) -> None:
    resolver = CatalogDrugResolver(catalog)
    for text, drug_id in (
        ("amox 500 mg", "amoxicilin"),
        ("Cozaa 50", "losartan"),
        ("azith 3 ngày", "azithromycin"),
    ):
        assert [m.drug_id for m in resolver.resolve(text)] == [drug_id], text


def test_a_prefix_another_drug_begins_with_is_not_shorthand(catalog: Catalog) -> None:
    # "predn" begins prednisone too (the ATC table): no guess between the two
    resolver = CatalogDrugResolver(catalog)
    assert resolver.resolve("predn 5 mg") == ()
    names = {"ibuprofen": ("Ibuprofen",), "ibandronat": ("Ibandronat",)}
    assert "ibup" in prefix_names(names)["ibuprofen"]
    assert all(len(p) >= 4 for own in prefix_names(names).values() for p in own)


def test_a_brand_of_the_drugs_inn_in_the_atc_table_names_it(catalog: Catalog) -> None:
    # the table gives "Pred" and "Spiro" as brands of prednisolone and spironolactone: the same
    # drugs, not drugs outside the formulary, and "warfa" no longer blocks warfarin's "warf"
    resolver = CatalogDrugResolver(catalog)
    named = (("Pred 40 mg", "prednisolon"), ("Spiro 25", "spironolacton"), ("warf 2mg", "warfarin"))
    for text, drug_id in named:
        assert [m.drug_id for m in resolver.resolve(text)] == [drug_id], text


def test_a_brand_that_is_an_ordinary_word_or_another_drugs_name_is_left_out() -> None:
    assert "delta" not in brand_names({"prednisolon": ("Prednisolon",)}).get("prednisolon", ())
    names = {"prednisolon": ("Prednisolon",), "pred_other": ("Pred",)}
    assert "pred" not in brand_names(names).get("prednisolon", ())
    assert "pred" in brand_names({"prednisolon": ("Prednisolon",)})["prednisolon"]
