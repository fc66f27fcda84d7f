"""What the book itself prefers for a pregnant or nursing patient when the drug asked is barred for
them: a drug whose own pregnancy or breastfeeding section names it the preferred choice
(`safety.preferred_in_state`: "Paracetamol là thuốc giảm đau, hạ sốt được ưu tiên lựa chọn trong
thời kỳ mang thai"), for a use the barred drug has too (a pair of words the sentence says the drug
is, before its word of preference, standing in the barred drug's Loại thuốc: "giảm đau", "hạ sốt"
for ibuprofen), and not barred for this patient itself (`barring.barring_lines`). Quoted with its
section, never called safe: the book prefers it, the clinician decides."""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache
from itertools import pairwise
from typing import cast

from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.sections import CLASS_SECTION
from duocthu.core.text import stop_words, words
from duocthu.models.evidence import EvidenceBundle, EvidenceItem, NamedAlternative
from duocthu.models.frame import PatientContext, QueryFrame
from duocthu.retrieval.barring import barring_lines
from duocthu.retrieval.facets import PatientProfile
from duocthu.retrieval.safety import preferred_in_state
from duocthu.retrieval.sentences import cues
from duocthu.store import VectorStore


def _use_pairs(text: str) -> set[str]:
    """The text's pairs of adjacent words neither of which is a stop word or a word of preference
    ("giảm đau", "hạ sốt"; not "ưu tiên", which a class may state too: "ức chế ưu tiên COX-2")."""
    left_out = stop_words() | {w for cue in cues()["preference"] for w in words(cue)}
    said = words(text)
    return {f"{a} {b}" for a, b in pairwise(said) if a not in left_out and b not in left_out}


@lru_cache(maxsize=8)
def _preferred(
    index: Hashable, resolver: CatalogDrugResolver, pregnant: bool, breastfeeding: bool
) -> tuple[tuple[NamedAlternative, EvidenceItem], ...]:
    """Every drug's sentences preferring itself in the state, read once per store (`index`, keyed
    by identity) and state: the whole book's pregnancy sections are the same for every patient,
    and reading them per turn grows with the book (3 ms at 40 monographs)."""
    state = PatientProfile(PatientContext(pregnancy=pregnant or None, breastfeeding=breastfeeding or None))
    return tuple(preferred_in_state(cast(VectorStore, index), resolver, list(resolver.by_id), state))


def _described(sentence: str) -> str:
    """What a sentence preferring a drug says it is, before its word of preference ("Paracetamol
    là thuốc giảm đau, hạ sốt" of "… được ưu tiên lựa chọn trong thời kỳ mang thai"), not what it
    goes on to say of its use ("khi cần điều trị")."""
    said = sentence.casefold()
    at = min((i for cue in cues()["preference"] if (i := said.find(cue)) >= 0), default=len(said))
    return sentence[:at]


def with_state_alternatives(
    bundle: EvidenceBundle,
    store: VectorStore,
    resolver: CatalogDrugResolver,
    drug_id: str,
    frame: QueryFrame,
) -> EvidenceBundle:
    """The bundle of a drug barred for this patient with the drugs the book prefers in their state
    for a use it has (`named_alternatives`, their sections' parts among the evidence)."""
    profile = PatientProfile.from_frame(frame)
    if not (profile.pregnant or profile.breastfeeding):
        return bundle
    uses = _use_pairs(" ".join(part.text for part in store.find_by_section(drug_id, CLASS_SECTION)))
    offered = [
        (alternative, part)
        for alternative, part in _preferred(
            cast(Hashable, store), resolver, profile.pregnant, profile.breastfeeding
        )
        if alternative.drug_id != drug_id
        and uses & _use_pairs(_described(alternative.text))
        and not barring_lines(store, alternative.drug_id, profile)
    ]
    if not offered:
        return bundle
    shown = {item.id for item in bundle.evidence}
    parts = tuple(part for _, part in offered if part.id not in shown)
    return bundle.model_copy(
        update={
            "evidence": (*bundle.evidence, *dict.fromkeys(parts)),
            "named_alternatives": (*bundle.named_alternatives, *(a for a, _ in offered)),
        }
    )
