"""The catalogue names of the drugs a turn is about: read once, where the resolver is, and carried
in the turn's plan, so that no later layer needs the resolver."""

from __future__ import annotations

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.frame import QueryFrame

# Catalogue names read per drug: its own name, then every recognisable alias (INN variants, brands).
_MAX_NAMES = 64


def drug_names(resolver: CatalogDrugResolver, drug_id: str) -> tuple[str, ...]:
    """The names a formulary text may use for drug_id: the resolver's catalogue names (ordinary
    words, names of three letters or fewer and pack codes are left out), or none if unknown."""
    if drug_id not in resolver.by_id:
        return ()
    return resolver.catalog_names(drug_id, limit=_MAX_NAMES)


def interacting_drugs(frame: QueryFrame, resolver: CatalogDrugResolver) -> tuple[str, ...]:
    """The catalogue drugs an interaction turn is about: the frame's drugs, then the patient's
    current medicines the catalogue knows ("đang dùng warfarin, uống ibuprofen được không")."""
    current = (
        m.drug_id for text in frame.patient_context.current_medications for m in resolver.resolve(text)
    )
    return tuple(d for d in dict.fromkeys((*frame.drugs, *current)) if d in resolver.by_id)
