"""Which drugs cause or exclude a condition (a condition_relation turn): the keyword pass of the
reverse lookup over the relation's own section (ADR, chống chỉ định, thận trọng, a population's
section) across drugs; and, for one named drug, how its section names the finding asked about.
No dense fallback: only chỉ định is embedded.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from duocthu.core.populations import NURSING, PREGNANT, population_named, population_wordings
from duocthu.core.sections import (
    ADR_SECTION,
    CAUTION_SECTION,
    CONTRAINDICATION_SECTION,
    INDICATION_SECTION,
    PHARMACOLOGY_SECTION,
    RELATION_SECTIONS,
    SAFETY_SECTIONS,
    SECTION_ORDER,
)
from duocthu.core.text import fold, stop_words, words
from duocthu.models.evidence import EvidenceBundle, EvidenceItem, RankedDrug
from duocthu.models.frame import QueryFrame, indication_of
from duocthu.retrieval.decision import EvidencePolicy
from duocthu.retrieval.levels import Band
from duocthu.retrieval.reverse.keyword import (
    SECONDARY_WEIGHT,
    find_by_indication,
    indication_score,
    written_run,
)
from duocthu.retrieval.reverse.ranking import DrugGroup, RankedGroups, Rerank, rank_drugs, ranked_bundle
from duocthu.retrieval.reverse.reading import advice_position, is_searchable
from duocthu.retrieval.reverse.stages import asked_stage, at_stage
from duocthu.retrieval.reverse.wordings import (
    as_written,
    population_advice,
    wider_findings,
)
from duocthu.store import VectorStore
from duocthu.store.base import rank_hits


@dataclass(frozen=True, slots=True)
class RelationSearch:
    """One section searched across drugs for any of `phrases`. `advice`: the phrases are the
    section's own avoidance wordings ("không nên dùng"), matched as written, stop words and all;
    otherwise they are what the user asked about, searched like an indication."""

    section_key: str
    phrases: tuple[str, ...]
    advice: bool = False
    # Wider findings holding the asked one: a drug found only through one of them is listed
    # apart, with the words its section uses (`EvidenceBundle.wider_drugs`).
    wider: tuple[str, ...] = ()
    # The section states findings among conditions, comparisons and uses (Thận trọng, Dược lý): a
    # part counts only where it states the finding as the drug's effect (`reading.states_effect`).
    effect: bool = False
    # A stage of pregnancy asked (`stages.asked_stage`): a part counts only where it holds then.
    stage: Band | None = None


# Where a which-drugs-cause lookup also looks, after the ADR list, in this order: a drug whose ADR
# list is silent on a finding its Thận trọng or Dược lý states as its effect ("Azithromycin có
# thể kéo dài khoảng QT", amiodaron's "khoảng QT kéo dài trên điện tâm đồ") is listed under that
# section; the ADR list is read first, so a drug counts under the first section stating it.
EFFECT_SECTIONS: tuple[str, ...] = (CAUTION_SECTION, PHARMACOLOGY_SECTION)
if not set(EFFECT_SECTIONS) <= set(SECTION_ORDER):  # checked at import, also under python -O
    raise ValueError(f"section_keys.tsv lacks one of {EFFECT_SECTIONS}")


@lru_cache(maxsize=1)
def _population_advice() -> dict[str, RelationSearch]:
    """Population -> its own section and the wordings there that advise against use."""
    return {
        population: RelationSearch(key, wordings, advice=True)
        for population, (key, wordings) in population_advice().items()
    }


# -- what a relation question searches for ----------------------------------------------------


def relation_section(frame: QueryFrame, candidates: Sequence[str] = (), named: bool = False) -> str | None:
    """The section a relation question is answered from: its relation's own, or, when its words
    name no relation (cause, exclude, treat) but a finding (or a name, `named`), the first safety
    section they point to (`candidates`, strongest first: the plan's reading of the question).
    Without a finding ("thuốc nào an toàn cho phụ nữ có thai") no section lists what is asked."""
    section = RELATION_SECTIONS.get(frame.condition_relation or "")
    if section is not None or not (named or frame.condition is not None):
        return section
    return next((key for key in candidates if key in SAFETY_SECTIONS), None)


def _narrowing(frame: QueryFrame) -> str | None:
    return frame.condition.subtype if frame.condition is not None else None


def asked_population(frame: QueryFrame) -> str | None:
    """The population a which-drugs question asks of: the frame's, or the one whose formulary
    wording its finding is when no condition table names it ("thuốc nào CCĐ trong thai kỳ"), or,
    asking no finding, the pregnancy or nursing the patient is told to be in ("3 tháng cuối thai
    kỳ thì CCĐ thuốc nào?")."""
    if asked_stage(frame) is not None:
        return PREGNANT  # the stage asked, whatever the age the patient is told
    if frame.population and not _age_told_apart(frame):
        return frame.population
    if frame.condition is None:
        context = frame.patient_context
        return PREGNANT if context.pregnancy else NURSING if context.breastfeeding else None
    return None if frame.condition.normalized else population_named(frame.condition.text)


def _age_told_apart(frame: QueryFrame) -> bool:
    """An age told apart from the finding asked ("Bé 5 tuổi …, thuốc nào CCĐ ở trẻ thiếu G6PD …?"):
    the age band is the patient's, the finding is what the list asks; an age inside the finding
    ("không dùng cho trẻ dưới 2 tuổi") is the band asked."""
    if frame.condition is None or frame.age_text is None:
        return False
    return fold(frame.age_text) not in fold(frame.condition.text)


def relation_phrases(frame: QueryFrame, narrowed: bool = True) -> tuple[str, ...]:
    """What a which-drugs-cause/exclude question searches for: its condition, with the words that
    narrow it ("chảy máu" + "cam") unless `narrowed` is off; when it names no known condition
    but a population ("không được dùng cho phụ nữ có thai"), the wordings the formulary uses for
    that population (data/population_phrases.tsv); never for a named drug, whose finding is
    searched as written ("Furosemid dùng cho trẻ sinh non có gây lắng đọng calci ở thận không?")."""
    condition = indication_of(frame)
    known = frame.condition is not None and frame.condition.normalized
    population = asked_population(frame)
    if not known and population and not frame.drugs:
        return population_wordings(population) or ((condition,) if condition else ())
    subtype = _narrowing(frame) if narrowed else None
    if condition and subtype:
        return (f"{condition} {subtype}",)
    if condition and not known:
        condition = _from_first_content_word(condition)
    return (condition,) if condition else ()


def _from_first_content_word(finding: str) -> str:
    """A finding no condition table names, as the question wrote it, from its first word that is
    not a stop word: the words that say who has it ("ở người", "bệnh") are never in the book's
    phrase ("Người bệnh nhược cơ" for "ở người nhược cơ")."""
    tokens = words(finding)
    stops = stop_words()
    start = next((i for i, t in enumerate(tokens) if t not in stops), len(tokens))
    return " ".join(tokens[start:])


def _wider_of(frame: QueryFrame, phrases: Sequence[str], narrowed: bool) -> tuple[str, ...]:
    """The wider findings of a relation question: the data file's for each phrase, and a narrowed
    condition's own name ("chảy máu" for "chảy máu cam")."""
    wider = [w for phrase in phrases for w in wider_findings(phrase)]
    head = indication_of(frame)
    if narrowed and _narrowing(frame) and head:
        wider.append(head)
    return tuple(dict.fromkeys(wider))


def relation_searches(
    frame: QueryFrame, narrowed: bool = True, candidates: Sequence[str] = (), names: Sequence[str] = ()
) -> tuple[RelationSearch, ...]:
    """The relation's own section (`relation_section`) for its phrases; for a contraindication
    question about a population that has a section of its own (pregnancy, breastfeeding), that
    section too, for its avoidance wordings (data/population_advice.tsv): a drug whose "Thời kỳ
    mang thai" says "không nên dùng" while its chống chỉ định is silent must not drop out of the
    list. A question asked of a population's own section reads it for those wordings. `names`:
    names the catalogue lacks, asked as what the section names ("thuốc nào tương tác với
    clarithromycin"): they are the phrases."""
    section = relation_section(frame, candidates, named=bool(names))
    phrases = tuple(names) or relation_phrases(frame, narrowed)
    if section is None or not phrases:
        return ()
    known = frame.condition is not None and frame.condition.normalized
    stage = asked_stage(frame)
    advice = _population_advice().get(asked_population(frame) or "")
    advice = replace(advice, stage=stage) if advice is not None else None
    if advice is not None and advice.section_key == section and not known:
        return (advice,)
    wider = _wider_of(frame, phrases, narrowed)
    searches = [RelationSearch(section, phrases, wider=wider, stage=stage)]
    contraindication = section == CONTRAINDICATION_SECTION
    if contraindication and not known and advice is not None:
        searches.append(advice)
    if contraindication and (known or advice is None):
        # "người bị gút nên tránh thuốc nào": a drug that names gout only under "Thận trọng"
        # (furosemid) is listed too, after the contraindicated ones and under its own heading;
        # so for a population with no section of its own ("người cao tuổi")
        searches.append(RelationSearch(CAUTION_SECTION, phrases, wider=wider))
    if section == ADR_SECTION:
        searches += [RelationSearch(key, phrases, effect=True) for key in EFFECT_SECTIONS]
    return tuple(searches)


# -- the lookup across drugs ------------------------------------------------------------------


def _find_advice(
    store: VectorStore, wording: str, section_key: str, skip_drugs: Collection[str] = frozenset()
) -> list[EvidenceItem]:
    """Prose parts of `section_key` where a data-file wording stands as written (marks and case
    aside, `advice_position`), scored like an indication mention; the parts of `skip_drugs` (already
    listed) are not read. No stop-word test: "không nên dùng" is made of stop words, and is the
    point."""
    phrase = words(wording)
    hits = []
    for part in store.find_prose(wording, section_key=section_key, skip_drugs=skip_drugs):
        position = advice_position(part.item.text, phrase)
        if position >= 0:
            score = indication_score(position, part.words)
            hits.append(part.scored(score))
    return rank_hits(hits)


def retrieve_by_relation(
    store: VectorStore,
    searches: Sequence[RelationSearch],
    policy: EvidencePolicy | None = None,
    *,
    rerank: Rerank | None = None,
    skip_drugs: Collection[str] = frozenset(),
    first: Collection[str] = frozenset(),
    every_section: bool = False,
) -> EvidenceBundle:
    """Condition -> the drugs whose ADR (or contraindication) section names it: the keyword pass
    of the reverse lookup over that section. A part counts when it holds any of a search's
    phrases. Searches are answered in order and a drug counts once, under the first section that
    names it, so every listed drug says which section it comes from; with `every_section` (a few
    drugs asked among), under each section that names it. `skip_drugs` are never listed (the drug
    whose names are searched: its own section names itself). No dense fallback (only chỉ định is
    embedded)."""
    policy = policy or EvidencePolicy()
    if not searches:
        return EvidenceBundle(decision="ABSTAIN", reason="needs_clarification")
    limit = policy.indication_retrieval_limit
    groups: list[DrugGroup] = []
    found: list[EvidenceItem] = []
    reranked, error = False, None
    advised = _advice_found(store, searches, skip_drugs)
    seconding = {} if every_section else _seconding(searches, advised)
    for search in searches:
        best: dict[str, EvidenceItem] = {}
        listed = () if every_section else (*(g.drug_id for g in groups), *(i.drug_id for i in found))
        counted = {*skip_drugs, *listed}
        for phrase in search.phrases:
            hits = (
                [hit for hit in advised[phrase] if hit.drug_id not in counted]
                if search.advice
                else find_by_indication(
                    store, phrase, section_key=search.section_key, effect=search.effect, skip_drugs=counted
                )
            )
            for hit in hits:
                if hit.id not in best or hit.score > best[hit.id].score:
                    best[hit.id] = hit
        hits = [h for h in rank_hits(list(best.values())) if h.drug_id not in counted]
        if search.stage is not None:
            hits = [h for h in hits if at_stage(h.text, search.phrases, search.stage)]
        if not hits:
            continue
        order = {} if search.advice else {d: rank for d, (rank, _) in seconding.items()}
        hits.sort(key=lambda h: h.drug_id not in order)  # stable: a seconded drug's parts are pooled
        ranked = rank_drugs(" ".join(search.phrases), hits[:limit], policy, rerank, first=order)
        groups.extend(ranked.groups)
        found.extend(hits)
        reranked, error = reranked or ranked.reranked, error or ranked.system_error
    counted = {*skip_drugs, *(g.drug_id for g in groups), *(i.drug_id for i in found)}
    wider = _found_wider(store, searches, counted)
    if not groups and not wider:
        return EvidenceBundle(decision="ABSTAIN", reason="insufficient_retrieval_score")
    cap = policy.indication_candidate_limit
    groups = [_with_part(g, seconding) for g in groups]
    groups.sort(key=lambda group: group.drug_id not in first)  # stable: else as ranked
    capped = RankedGroups(tuple(groups[:cap]), reranked, error)
    # the drugs of a wider finding are quoted in the room the drugs naming it leave; the rest named
    quoted = [item for _, item in wider[: max(cap - len(capped.groups), 0)]]
    quoted_ids = {item.id for item in quoted}
    wider_drugs = [
        drug.model_copy(update={"evidence_ids": (item.id,) if item.id in quoted_ids else ()})
        for drug, item in wider
    ]
    route = "keyword:" + "+".join(dict.fromkeys(s.section_key for s in searches))
    return ranked_bundle(capped, route, found, wider_drugs, quoted)


def _advice_found(
    store: VectorStore, searches: Sequence[RelationSearch], skip_drugs: Collection[str]
) -> dict[str, list[EvidenceItem]]:
    """Each avoidance wording of the population's own section searched -> its parts, read once:
    the section's own list and the seconding of the contraindications both use them."""
    advice = next((s for s in searches if s.advice), None)
    if advice is None:
        return {}
    return {
        wording: _find_advice(store, wording, advice.section_key, skip_drugs) for wording in advice.phrases
    }


def _seconding(
    searches: Sequence[RelationSearch], advised: dict[str, list[EvidenceItem]]
) -> dict[str, tuple[int, EvidenceItem]]:
    """Drug -> how firmly and where its population's own section advises against it, when a
    contraindication search of that population comes first: the rank of the first wording of the
    data file its section holds (they run from "chống chỉ định trong" to "không khuyến cáo") and
    that part. A drug whose contraindications name the population and whose own section seconds
    them is listed first, the firmest wording first, and quotes both: the book says it twice of
    it (warfarin), where one line may hold only for a dose, a form or a stage."""
    if not advised or searches[0].advice:
        return {}
    seconding: dict[str, tuple[int, EvidenceItem]] = {}
    for rank, hits in enumerate(advised.values()):  # the data file's order
        for hit in hits:
            seconding.setdefault(hit.drug_id, (rank, hit))
    return seconding


def _with_part(group: DrugGroup, seconding: dict[str, tuple[int, EvidenceItem]]) -> DrugGroup:
    """A group listed under another section than its population's, with the part seconding it."""
    if (
        group.drug_id not in seconding
        or group.items[0].section_key == seconding[group.drug_id][1].section_key
    ):
        return group
    part = seconding[group.drug_id][1]
    return DrugGroup(group.drug_id, group.display_name, group.score, (*group.items, part))


def retrieve_for_relation(
    store: VectorStore,
    frame: QueryFrame,
    policy: EvidencePolicy | None = None,
    *,
    rerank: Rerank | None = None,
    candidates: Sequence[str] = (),
    names: Sequence[str] = (),
    skip_drugs: Collection[str] = frozenset(),
    first: Collection[str] = frozenset(),
    every_section: bool = False,
) -> EvidenceBundle:
    """A relation question's lookup: the finding with the words that narrow it ("chảy máu cam"),
    the finding alone listed apart as wider. When no section writes the narrowed form, the words
    were no narrowing the formulary knows ("suy thận hoài"), and the finding alone is searched as
    the one asked. `candidates`: the sections the question's words point to (`relation_section`);
    `names`: names searched as the finding (a name the catalogue lacks, or a catalogue drug's
    names, that drug in `skip_drugs`); `first`: drugs listed before the others that name it (the
    medicines the patient takes: "đang Prozac, hạ natri máu, có phải do thuốc?")."""
    searches = relation_searches(frame, candidates=candidates, names=names)

    def lookup(searches: Sequence[RelationSearch]) -> EvidenceBundle:
        return retrieve_by_relation(
            store,
            searches,
            policy,
            rerank=rerank,
            skip_drugs=skip_drugs,
            first=first,
            every_section=every_section,
        )

    bundle = lookup(searches)
    if names or bundle.ranked_drugs:
        return bundle
    if _narrowing(frame):
        return lookup(relation_searches(frame, narrowed=False, candidates=candidates))
    asked = frame.condition
    if asked is None or asked.normalized:
        return bundle
    # a finding no table names, asked with words around it the book never writes beside it ("CCĐ
    # hoặc phải thận trọng vì làm nặng nhược cơ"): the longest run of its words the book writes
    sections = tuple(dict.fromkeys(s.section_key for s in searches if not s.advice))
    run = written_run(store, asked.text, sections)
    if run is None:
        return bundle
    written = frame.model_copy(update={"condition": asked.model_copy(update={"text": run})})
    found = lookup(relation_searches(written, candidates=candidates))
    return found.model_copy(update={"searched_as": run}) if found.ranked_drugs else bundle


def _found_wider(
    store: VectorStore, searches: Sequence[RelationSearch], counted: set[str]
) -> list[tuple[RankedDrug, EvidenceItem]]:
    """Drugs not yet listed whose section names a wider finding holding the one asked
    (`RelationSearch.wider`), each with the first wider wording its section holds and its best
    part for that wording: by search, then by score. Never a drug that names the finding itself
    (`counted`)."""
    drugs: dict[str, tuple[RankedDrug, EvidenceItem]] = {}
    for search in searches:
        best: dict[str, tuple[EvidenceItem, str]] = {}
        for wording in search.wider:
            for hit in find_by_indication(store, wording, section_key=search.section_key):
                if hit.drug_id not in best:  # the first wider wording, its best part
                    best[hit.drug_id] = (hit, wording)
        ranked = sorted(best.values(), key=lambda found: (-found[0].score, found[0].drug_id))
        for hit, wording in ranked:
            if hit.drug_id in counted or hit.drug_id in drugs:
                continue
            drug = RankedDrug(
                drug_id=hit.drug_id,
                display_name=hit.display_name,
                score=hit.score,
                section_key=search.section_key,
                wider_finding=as_written(hit.text, wording),
            )
            drugs[hit.drug_id] = (drug, hit)
    return list(drugs.values())


# -- one named drug's section ------------------------------------------------------------------


def with_section_reading(
    bundle: EvidenceBundle, store: VectorStore, drug_id: str, frame: QueryFrame
) -> EvidenceBundle:
    """A "does X treat / cause / exclude Y" answer quotes X's whole section; this says how that
    section names Y, read as a which-drugs lookup would read it: as what is asked (X in
    `ranked_drugs`); in chỉ định, only inside another disease's name or as a risk (in
    `incidental_drugs`); only as a wider finding holding Y (in `wider_drugs`, with the section's
    words: "loét và xuất huyết tiêu hóa" for "loét dạ dày"); or in none of the formulary's
    wordings of Y (none of them). The section searched is the frame's relation's; for "X có gây Y
    không?" an ADR list silent on Y is followed, as the which-drugs lookup follows it, by X's
    Thận trọng and Dược lý where they state Y as X's effect (`ranked_drugs` names the section).
    Words that narrow Y but that no drug's section writes ("hạ natri máu phải") are dropped, as
    `retrieve_for_relation` drops them."""
    if bundle.decision == "ABSTAIN":
        return bundle
    searches = _named_drug_searches(store, frame)
    for search in searches:
        found = _named_drug_hits(store, drug_id, search)
        if found:
            return bundle.model_copy(update=found)
    found_wider = _found_wider(store, searches[:1], counted=set())
    wider = [
        d.model_copy(update={"evidence_ids": (hit.id,)}) for d, hit in found_wider if d.drug_id == drug_id
    ]
    return bundle.model_copy(update={"wider_drugs": tuple(wider[:1])}) if wider else bundle


def _named_drug_searches(store: VectorStore, frame: QueryFrame) -> list[RelationSearch]:
    """The relation's own section, then (for "X có gây Y không?") the sections read for the drug's
    own effect; narrowed unless no drug's section writes the narrowed form."""

    def read(narrowed: bool) -> list[RelationSearch]:
        return [s for i, s in enumerate(relation_searches(frame, narrowed)) if i == 0 or s.effect]

    searches = read(True)
    if not _narrowing(frame):
        return searches
    known = any(
        find_by_indication(store, phrase, section_key=search.section_key, limit=1, effect=search.effect)
        for search in searches
        for phrase in search.phrases
    )
    return searches if known else read(False)


def _named_drug_hits(
    store: VectorStore, drug_id: str, search: RelationSearch
) -> dict[str, tuple[RankedDrug]]:
    """The bundle fields that say the drug's section of `search` names its phrase: the drug in
    `ranked_drugs`, or `incidental_drugs` for a chỉ định mention inside another disease or as a
    risk; {} when the section does not name it."""
    hits = [
        hit
        for phrase in search.phrases
        if is_searchable(phrase)
        for hit in find_by_indication(store, phrase, section_key=search.section_key, effect=search.effect)
        if hit.drug_id == drug_id
    ]
    if not hits:
        return {}
    best = max(hit.score for hit in hits)
    drug = RankedDrug(
        drug_id=drug_id,
        display_name=hits[0].display_name,
        score=best,
        section_key=search.section_key,
        evidence_ids=tuple(dict.fromkeys(hit.id for hit in hits)),
    )
    apart = search.section_key == INDICATION_SECTION and best <= SECONDARY_WEIGHT
    return {"incidental_drugs" if apart else "ranked_drugs": (drug,)}
