"""The invented drugs of the safety tests, as a catalogue, and the patients they are assessed for."""

from __future__ import annotations

from typing import Any

from duocthu.catalog.artifact import Catalog, CatalogDrug
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.frame import PatientContext
from duocthu.retrieval.facets import PatientProfile

NAMES = {
    "dronaxin": ("Dronaxin", ("Dronax",)),
    "pelmorin": ("Pelmorin", ("Pelmor forte",)),
    "feltamid": ("Feltamid", ()),
    "quetafil": ("Quetafil", ()),
    "zorvudin": ("Zorvudin", ()),
}


def names_resolver() -> CatalogDrugResolver:
    drugs = tuple(CatalogDrug(drug_id=d, title=t, aliases=a) for d, (t, a) in NAMES.items())
    return CatalogDrugResolver(Catalog(corpus_hash="h", drugs=drugs))


def patient(**context: Any) -> PatientProfile:
    extra = {k: context.pop(k) for k in ("population", "age_text") if k in context}
    return PatientProfile(PatientContext(**context), **extra)
