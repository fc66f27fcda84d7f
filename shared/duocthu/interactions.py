"""Interaction evidence for two or more named drugs (reference 09: the pool of `_interaction`), or
for one and names the catalogue lacks.

Each drug's `tuong_tac_thuoc` section is read whole (the section route: a filtered scroll, never a
top-k) and a part joins the pool when it names one of the *other* drugs by a catalogue name, as a
whole-word phrase. The formulary writes an interaction under both drugs, so both directions are
searched and pooled. The pool goes through the public `decide()`: a quarantined part makes the
answer VERIFY_PDF. A quarantined section joins the pool whole, even where its extracted text names
no other drug, because that text is exactly what cannot be trusted; dropping it is how the old
interaction path once hid a quarantined drug's evidence.

No part naming another drug is ABSTAIN `insufficient_retrieval_score`: the formulary text found
says nothing about the pair, which is not the same as "no interaction". Wording it is chat's job.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache

from duocthu.catalog import CatalogDrugResolver
from duocthu.evidence import EvidenceBundle, EvidenceItem
from duocthu.frame import QueryFrame
from duocthu.policy import decide
from duocthu.sections import INTERACTION_SECTION
from duocthu.store import VectorStore
from duocthu.text import folded_words, token_matches, words

# Catalogue names read per drug: its own name, then every recognisable alias (INN variants, brands).
_MAX_NAMES = 64


def drug_names(resolver: CatalogDrugResolver, drug_id: str) -> tuple[str, ...]:
    """The names a formulary text may use for drug_id: the resolver's catalogue names (ordinary
    words, names of three letters or fewer and pack codes are left out), or none if unknown."""
    if drug_id not in resolver.by_id:
        return ()
    return resolver.catalog_names(drug_id, limit=_MAX_NAMES)


@lru_cache(maxsize=4096)
def _tokens(phrase: str) -> tuple[str, ...]:
    return tuple(words(phrase))


def phrase_positions(tokens: Sequence[str], phrase: str) -> Iterator[int]:
    """Where `phrase` occurs in `tokens` as a contiguous run of whole words, under the diacritics
    rule with the phrase as the typed side: a word written with marks must match them, one written
    without marks matches the folded text ("warfarin" in "Warfarin:", never inside "esomeprazol"
    for "omeprazol")."""
    target = _tokens(phrase)
    n = len(target)
    return (
        i
        for i in range(len(tokens) - n + 1)
        if n and all(token_matches(p, t) for p, t in zip(target, tokens[i : i + n], strict=True))
    )


def phrase_in(tokens: Sequence[str], phrase: str) -> bool:
    """True when `phrase` occurs in `tokens` (`phrase_positions`)."""
    return next(phrase_positions(tokens, phrase), None) is not None


def names_in(text: str, names: Mapping[str, Sequence[str]]) -> frozenset[str]:
    """The keys of `names` (drug ids) whose names the text contains as whole-word phrases."""
    tokens = words(text)
    return frozenset(key for key, phrases in names.items() if any(phrase_in(tokens, p) for p in phrases))


def lexical_query(names: Mapping[str, Sequence[str]]) -> str:
    """One lexical query from every name (the store scores distinct words; the phrase check decides)."""
    return " ; ".join(dict.fromkeys(" ".join(folded_words(n)) for ns in names.values() for n in ns))


def _pool(store: VectorStore, drug_id: str, others: Mapping[str, Sequence[str]]) -> list[EvidenceItem]:
    parts = store.find_by_section(drug_id, INTERACTION_SECTION)
    if any(part.needs_visual_check for part in parts):
        return parts  # quarantined: surfaced whole, for a check against the printed page
    return [part for part in parts if names_in(part.text, others)]


# Words that join two medicines in a question ("paracetamol và tramadol", "warfarin với X").
_JOINERS = frozenset({"va", "voi", "cung", "kem", "hoac", "hay", "phoi", "hop", "chung"})
_MAX_JOINER_WORDS = 2


def joined_unknown_names(question: str, frame: QueryFrame, resolver: CatalogDrugResolver) -> tuple[str, ...]:
    """The names the catalogue lacks that the question joins to a catalogue drug ("paracetamol
    và tramadol", "warfarin với rifampicin", "paracetamol + codein"): asked about beside it, so
    an answer from that drug's text alone must say it does not cover them. An unknown name
    elsewhere in the question (an abbreviation, a place) is left alone."""
    tokens = folded_words(question)
    spans = [(m.start, m.end) for m in resolver.resolve(question)]
    joined = []
    for name in frame.unknown_drugs:
        target = folded_words(name)
        at = next(
            (i for i in range(len(tokens) - len(target) + 1) if tokens[i : i + len(target)] == target), -1
        )
        if at < 0 or not target:
            continue
        end = at + len(target)
        gaps = [tokens[e:at] for _, e in spans if e <= at] + [tokens[end:s] for s, _ in spans if s >= end]
        if any(len(gap) <= _MAX_JOINER_WORDS and all(t in _JOINERS for t in gap) for gap in gaps):
            joined.append(name)
    return tuple(joined)


def interacting_drugs(frame: QueryFrame, resolver: CatalogDrugResolver) -> tuple[str, ...]:
    """The catalogue drugs an interaction turn is about: the frame's drugs, then the patient's
    current medicines the catalogue knows ("đang dùng warfarin, uống ibuprofen được không")."""
    current = (
        m.drug_id for text in frame.patient_context.current_medications for m in resolver.resolve(text)
    )
    return tuple(d for d in dict.fromkeys((*frame.drugs, *current)) if d in resolver.by_id)


def interaction_evidence(
    store: VectorStore,
    resolver: CatalogDrugResolver,
    drug_ids: Iterable[str],
    unknown_names: Sequence[str] = (),
) -> EvidenceBundle:
    """The pooled interaction evidence for the named drugs, decided by `decide()`. A name the
    catalogue lacks ("paracetamol và tramadol") is searched as written in each drug's section:
    the formulary may still name it there, and if not, the answer says so rather than quoting
    the whole section as if it answered."""
    ids = list(dict.fromkeys(drug_ids))
    names = {drug_id: drug_names(resolver, drug_id) for drug_id in ids}
    unknown = {f"unknown:{name}": (name,) for name in unknown_names}
    pool: dict[str, EvidenceItem] = {}
    for drug_id in ids:
        others = {other: names[other] for other in ids if other != drug_id and names[other]} | unknown
        if not others:
            continue
        for part in _pool(store, drug_id, others):
            pool.setdefault(part.id, part)
    if not pool:
        return EvidenceBundle(decision="ABSTAIN", reason="insufficient_retrieval_score")
    return decide(list(pool.values()))
