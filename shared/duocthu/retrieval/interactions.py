"""Interaction evidence for two or more named drugs (reference 09: the pool of `_interaction`), or
for one and names the catalogue lacks.

Each drug's `tuong_tac_thuoc` section is read whole (the section route: a filtered scroll, never a
top-k) and a part joins the pool when it names one of the *other* drugs by a catalogue name, as a
whole-word phrase. The formulary writes an interaction under both drugs, so both directions are
searched and pooled. The pool goes through the public `decide()`: a quarantined part makes the
answer VERIFY_PDF. A quarantined section joins the pool whole, even where its extracted text names
no other drug, because that text is exactly what cannot be trusted; dropping it is how the old
interaction path once hid a quarantined drug's evidence.

A part that names another asked drug only by its class joins too (data/drug_classes.tsv: the
class its "Loại thuốc" section names, "thuốc ức chế enzym chuyển" for enalapril), and the bundle
says so (`named_by_class`), so the answer never reads as the formulary naming that drug. With three
or more drugs, a part naming one by name and another only by its class records the class for the
other.

No part naming another drug is ABSTAIN `insufficient_retrieval_score`: the formulary text found
says nothing about the pair, which is not the same as "no interaction". Wording it is chat's job.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import cache, lru_cache
from types import MappingProxyType

from duocthu.catalog.drug_names import drug_names
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.catalog.world_drugs import spelling_key
from duocthu.core.caching import text_cache
from duocthu.core.phrases import PhraseIndex, find_phrase, longest_spans
from duocthu.core.sections import CLASS_SECTION, CONTRAINDICATION_SECTION, INTERACTION_SECTION
from duocthu.core.tables import table_records
from duocthu.core.text import fold, raw_words, segment_ids, words
from duocthu.models.evidence import EvidenceBundle, EvidenceItem, NamedByClass
from duocthu.models.frame import PatientContext
from duocthu.retrieval.decision import decide
from duocthu.store import VectorStore


@text_cache(maxsize=4096)
def _tokens(phrase: str) -> tuple[str, ...]:
    return tuple(words(phrase))


def phrase_in(tokens: Sequence[str], phrase: str) -> bool:
    """True when `phrase` stands in `tokens` as whole words under the diacritics rule, the phrase
    as the typed side: "warfarin" in "Warfarin:", never "omeprazol" inside "esomeprazol"."""
    return find_phrase(tokens, _tokens(phrase), lenient=True) >= 0


@text_cache(maxsize=4096)
def _folded_run(phrase: str) -> str:
    return _padded(_tokens(phrase))


def _padded(tokens: Sequence[str]) -> str:
    """The words folded, joined and padded with spaces: a phrase can stand in words only where
    its own padded run stands in theirs (each word it matches folds to the same word)."""
    return f" {' '.join(map(fold, tokens))} "


def phrases_in(tokens: Sequence[str], phrases: Sequence[str]) -> bool:
    """Whether any of `phrases` stands in `tokens` (`phrase_in`). A phrase whose folded words do
    not stand in the folded text cannot match, and is not scanned for."""
    folded = _padded(tokens)
    return any(_folded_run(p) in folded and phrase_in(tokens, p) for p in phrases)


@text_cache(maxsize=4096)  # a formulary sentence is read for names again at every turn naming its drug
def _read(text: str) -> tuple[tuple[str, ...], str]:
    """The text's words, and their padded folded run (`_padded`)."""
    tokens = tuple(words(text))
    return tokens, _padded(tokens)


def names_in(text: str, names: Mapping[str, Sequence[str]]) -> frozenset[str]:
    """The keys of `names` (drug ids) whose names the text contains as whole-word phrases."""
    tokens, folded = _read(text)
    return frozenset(
        key
        for key, phrases in names.items()
        if any(_folded_run(p) in folded and phrase_in(tokens, p) for p in phrases)
    )


# -- drug classes (data/drug_classes.tsv) ------------------------------------------------------

_CLAUSE_MARKS = ".;:!?\n,"


@lru_cache(maxsize=1)
def _class_table() -> tuple[PhraseIndex[str], tuple[str, ...]]:
    """The class phrases as an index, and as runs of words: a text whose words hold none of them
    names no class, and is not scanned span by span."""
    index: PhraseIndex[str] = PhraseIndex()
    phrases: set[str] = set()
    for row in table_records("drug_classes.tsv"):
        index.add(row["phrase"], row["class"], allow_folded=False)
        phrases.add(" ".join(words(row["phrase"])))
    return index, tuple(sorted(phrases))


@text_cache(maxsize=8192)  # a formulary sentence is read again for every patient its drug is checked for
def classes_named(
    text: str, affirmed_only: bool = False, own: frozenset[str] = frozenset()
) -> Mapping[str, str]:
    """The drug classes a text names, each with its first wording as written: the longest phrase
    at a place wins. With `affirmed_only`, a class after "không" in its clause does not count
    ("không xếp vào nhóm thuốc chống viêm không steroid"). A class in `own` (the section's own
    drug's classes) counts only as its other members ("các thuốc chống viêm không steroid khác",
    "hai thuốc chống viêm không steroid"): said alone in diclofenac's section, it is diclofenac's
    own class beside a third drug ("kháng sinh quinolon phối hợp với thuốc chống viêm không
    steroid")."""
    index, phrases = _class_table()
    tokens = words(text)
    joined = " ".join(tokens)
    if not any(phrase in joined for phrase in phrases):
        return MappingProxyType({})
    spans = longest_spans(index.matches(tokens))
    if not spans:
        return MappingProxyType({})
    clauses = segment_ids(text, _CLAUSE_MARKS)
    written = raw_words(text)
    inside = {i for m in spans for i in range(m.start, m.start + m.length)}  # "chống viêm không steroid"
    found: dict[str, str] = {}
    for match in spans:
        negators = (
            i
            for i in range(match.start)
            if clauses[i] == clauses[match.start] and tokens[i] == "không" and i not in inside
        )
        if affirmed_only and next(negators, None) is not None:
            continue
        end = match.start + match.length
        others = tokens[end : end + 1] == ["khác"] or "hai" in tokens[max(0, match.start - 2) : match.start]
        if match.value in own and not others:
            continue
        found.setdefault(match.value, " ".join(written[match.start : match.start + match.length]))
    return MappingProxyType(found)  # kept in the cache: read-only


# At most this many words between a class a question names and the "nào" asking among it
# ("thuốc chống đông máu đường uống nào")
CLASS_TO_WHICH = 3
# A section's words for any medicine taken with the drug, as opposed to one it names
_ANY_MEDICINE_TAKEN = re.compile(r"\bthuốc dùng (?:kèm|cùng|đồng thời)\b", re.IGNORECASE)


def classes_asked_among(question: str) -> Mapping[str, str]:
    """The classes a which-drug question asks among, each with its wording: named just before "nào"
    ("NSAID nào …"), not after it ("thuốc nào tương tác với thuốc chống đông" asks of the class,
    not among it)."""
    folded = [fold(t) for t in words(question)]
    asked: dict[str, str] = {}
    for value, wording in classes_named(question, affirmed_only=True).items():
        said = [fold(t) for t in words(wording)]
        ends = [i + len(said) for i in range(len(folded)) if folded[i : i + len(said)] == said]
        if any("nao" in folded[end : end + CLASS_TO_WHICH] for end in ends):
            asked[value] = wording
    return asked


@cache
def _world_classes() -> Mapping[str, frozenset[str]]:
    return {
        spelling_key(r["name"]): frozenset(r["classes"].split(","))
        for r in table_records("world_classes.tsv")
    }


def outside_classes(texts: Iterable[str]) -> frozenset[str]:
    """The classes of the drugs outside the catalogue that the texts name (a word, or two)."""
    table, found = _world_classes(), set[str]()
    for text in texts:
        tokens = words(text)
        for i in range(len(tokens)):
            for name in (tokens[i], " ".join(tokens[i : i + 2])):
                found |= table.get(spelling_key(name), frozenset())
    return frozenset(found)


def drug_classes(store: VectorStore, drug_id: str) -> frozenset[str]:
    """The classes a drug's "Loại thuốc" section puts it in."""
    return frozenset(_classes_of(store, drug_id))


def class_wordings(store: VectorStore, drug_id: str) -> tuple[str, ...]:
    """The words a drug's "Loại thuốc" section names its classes with, as written ("penicilin")."""
    return tuple(dict.fromkeys(_classes_of(store, drug_id).values()))


def reacted_to(
    store: VectorStore, resolver: CatalogDrugResolver, context: PatientContext, skip: Collection[str]
) -> list[tuple[str, tuple[str, ...]]]:
    """The catalogue drugs the patient is allergic or reacted to (but those in `skip`), each with
    its names, then each wording of their classes as a name of its own: a line naming the drug or
    its class ("dị ứng nhẹ … với penicilin" for amoxicilin) states a cross-reaction."""
    told = (*context.allergies, *context.adverse_reactions)
    found = dict.fromkeys(m.drug_id for text in told for m in resolver.resolve(text))
    reacted = [d for d in found if d not in skip]
    named = [(d, drug_names(resolver, d)) for d in reacted]
    return [*named, *((w, (w,)) for d in reacted for w in class_wordings(store, d))]


def _classes_of(store: VectorStore, drug_id: str) -> dict[str, str]:
    parts = store.find_by_section(drug_id, CLASS_SECTION)
    return {c: w for part in parts for c, w in classes_named(part.text, affirmed_only=True).items()}


def _pool(
    store: VectorStore,
    drug_id: str,
    section: list[EvidenceItem],
    others: Mapping[str, Sequence[str]],
    classes: Mapping[str, frozenset[str]],
) -> tuple[list[EvidenceItem], list[NamedByClass]]:
    """`section`: the drug's interaction section, read once for the pool and its general rule."""
    parts = section
    if any(part.needs_visual_check for part in parts):
        return parts, []  # quarantined: surfaced whole, for a check against the printed page
    # the formulary may write a forbidden combination under contraindications: read there too
    parts = [*parts, *store.find_by_section(drug_id, CONTRAINDICATION_SECTION)]
    pooled: list[EvidenceItem] = []
    by_class: list[NamedByClass] = []
    for part in parts:
        by_name = names_in(part.text, others)
        if len(by_name) == len(others):
            pooled.append(part)
            continue
        # an asked drug the part does not name may still be named by its class, beside others
        # named by name ("… corticosteroid như prednisolon … thuốc chống viêm không steroid")
        named = classes_named(part.text, own=classes.get(drug_id, frozenset()))
        mentions = [
            NamedByClass(evidence_id=part.id, drug_id=other, wording=named[c])
            for other in others
            if other not in by_name
            for c in sorted(classes.get(other, ()))
            if c in named
        ]
        if by_name or mentions:
            pooled.append(part)
            by_class += mentions
    return pooled, by_class


def _general_rule(
    section: Sequence[EvidenceItem], resolver: CatalogDrugResolver, drug_id: str
) -> list[EvidenceItem]:
    """The parts of a drug's interaction section about any medicine taken with it ("thuốc dùng
    kèm"), naming no other drug: what the section says of every pair (a level to check on any
    change), which holds for each pair it names."""
    return [
        part
        for part in section
        if not part.needs_visual_check
        and _ANY_MEDICINE_TAKEN.search(part.text)
        and all(match.drug_id == drug_id for match in resolver.mentions(part.text))
    ]


def _as_written(store: VectorStore, drug_ids: Sequence[str], name: str) -> tuple[str, ...]:
    """A name outside the catalogue, and the words of the asked drugs' monographs spelling it the
    book's way ("Pantoprazole" is "pantoprazol" there): the same drug, named."""
    key = spelling_key(name)
    texts = (part.text for drug_id in drug_ids for part in store.find_by_drug(drug_id))
    spelt = (word for text in texts for word in raw_words(text) if _word_key(word) == key)
    return tuple(dict.fromkeys((name, *spelt)))


@cache
def _word_key(word: str) -> str:
    """A book word's spelling key, kept: the book's words are few and read again each turn."""
    return spelling_key(word)


def _naming_elsewhere(
    store: VectorStore, drug_id: str, unknown: Mapping[str, Sequence[str]]
) -> list[EvidenceItem]:
    """The parts outside the interaction section that name a medicine the catalogue lacks: the
    formulary may write a forbidden combination under contraindications, or an antidote under
    overdose, and a name asked beside a drug is looked for in its whole monograph."""
    parts = store.find_by_drug(drug_id)
    return [p for p in parts if p.section_key != INTERACTION_SECTION and names_in(p.text, unknown)]


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
    unknown = {f"unknown:{name}": _as_written(store, ids, name) for name in unknown_names}
    pair = len(ids) + len(unknown) > 1
    classes = {drug_id: drug_classes(store, drug_id) for drug_id in ids} if pair else {}
    # a medicine outside the catalogue is named by its class too (the kit's ATC table's "Loại
    # thuốc"): a section naming "thuốc kháng acid" names every antacid, a brand the book never writes
    classes |= {key: outside_classes(written) for key, written in unknown.items()}
    pool: dict[str, EvidenceItem] = {}
    by_class: dict[tuple[str, str], NamedByClass] = {}
    for drug_id in ids:
        others = {other: names[other] for other in ids if other != drug_id and names[other]} | unknown
        if not others:
            continue
        section = store.find_by_section(drug_id, INTERACTION_SECTION)
        parts, mentions = _pool(store, drug_id, section, others, classes)
        if any(part.section_key == INTERACTION_SECTION for part in parts):
            parts = [*_general_rule(section, resolver, drug_id), *parts]
        for part in parts:
            pool.setdefault(part.id, part)
        for mention in mentions:
            by_class.setdefault((mention.evidence_id, mention.drug_id), mention)
    for drug_id in ids if unknown else ():
        for part in _naming_elsewhere(store, drug_id, unknown):
            pool.setdefault(part.id, part)
    if not pool:
        return EvidenceBundle(decision="ABSTAIN", reason="insufficient_retrieval_score")
    bundle = decide(list(pool.values()))
    kept = {item.id for item in bundle.evidence}
    named_by_class = tuple(
        m.model_copy(update={"drug_id": m.drug_id.removeprefix("unknown:")})  # the name as asked
        for m in by_class.values()
        if m.evidence_id in kept
    )
    return bundle.model_copy(update={"named_by_class": named_by_class}) if named_by_class else bundle
