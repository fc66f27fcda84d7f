"""RetrievalService: a plan's asks -> their evidence, gathered in one call (reference 09).

When the question names its section, a payload filter answers it exactly: letting similarity
choose the section was measured at hit@1 0.544 (0.05 on chong_chi_dinh), because the large
pharmacology section sits close to almost any question. Routes here:

- the section route: the whole section, read to exhaustion, in part order, score 1.0 by
  construction (an exact match, not a similarity), no evidence limit: a truncated list of
  contraindications would read as a complete one;
- bounded cross-section pooling, for the routes the policy names (than_trong): parts of other
  sections of the same drug that match the question strongly by lexical score;
- the drug overview: prose parts in book order, the intro sections only for a drug_overview turn
  (the whole monograph for a bare drug name once made answers too long to generate).

- the free-form route (duocthu.retrieval.freeform): a question naming no section, about one drug; its
  prose parts ordered by a reranker or lexically (never book order), packed to a token budget.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from duocthu.catalog.drug_names import drug_names
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline
from duocthu.core.phrases import contains_phrase
from duocthu.core.ports import Embedder, Reranker
from duocthu.core.sections import (
    CONTRAINDICATION_SECTION,
    DOSE_SECTION,
    INDICATION_SECTION,
    INTERACTION_SECTION,
    INTRO_SECTIONS,
)
from duocthu.core.text import raw_words, token_matches
from duocthu.models.evidence import (
    AskEvidence,
    EvidenceBundle,
    EvidenceItem,
    GatheredEvidence,
    RankedLine,
    WholeSection,
)
from duocthu.models.frame import QueryFrame
from duocthu.models.plan import Ask, Plan
from duocthu.retrieval.advice import directs
from duocthu.retrieval.allergy import allergens_told, allergy_lines, severe_signs
from duocthu.retrieval.answering import MAX_LINES, answering_lines, firsts_then_rest
from duocthu.retrieval.barring import barring_lines, without_dose
from duocthu.retrieval.book_lines import book_lines, content_words
from duocthu.retrieval.continuations import with_continuations
from duocthu.retrieval.decision import EvidencePolicy, decide
from duocthu.retrieval.facets import PatientProfile
from duocthu.retrieval.freeform import free_form
from duocthu.retrieval.interactions import (
    classes_asked_among,
    drug_classes,
    interaction_evidence,
    reacted_to,
)
from duocthu.retrieval.reverse.indication import retrieve_by_indication
from duocthu.retrieval.reverse.ranking import Rerank, only_among
from duocthu.retrieval.reverse.relation import retrieve_for_relation, with_section_reading
from duocthu.retrieval.reverse.wordings import other_wordings
from duocthu.retrieval.safety import retrieve_patient_drug_context, with_patient_safety
from duocthu.retrieval.state_alternatives import with_state_alternatives
from duocthu.store import VectorStore


def label_sections(items: Sequence[EvidenceItem]) -> list[EvidenceItem]:
    """Prefix each section's first part with 【display name】 (reference 09's overview), so that a
    model reading the concatenated parts always knows which drug a section is about, also when a
    pool holds several drugs."""
    labelled: list[EvidenceItem] = []
    seen: set[tuple[str, str]] = set()
    for item in items:
        key = (item.drug_id, item.section_key)
        if key not in seen:
            seen.add(key)
            item = item.model_copy(update={"text": f"【{item.display_name}】 {item.text}"})
        labelled.append(item)
    return labelled


# The asks about named drugs' monographs read for a question (an overview is a bare name)
LINE_ASKS = frozenset({"section", "monograph", "uses", "lines", "each_drug", "together"})
# The abstentions that would say "no information" about a named drug
READ_BEFORE_NO = frozenset({"section_absent", "insufficient_retrieval_score", "out_of_scope"})
# Asks answered by a list of drugs whose section names a finding (their lines are never read)
WHICH_DRUG_ASKS = frozenset({"condition", "relation"})


class RetrievalService:
    def __init__(
        self,
        store: VectorStore,
        policy: EvidencePolicy | None = None,
        embedder: Embedder | None = None,
        rerank: Rerank | None = None,
        reranker: Reranker | None = None,
    ):
        self.store = store
        self.policy = policy or EvidencePolicy()
        self.embedder = embedder  # reverse lookup's dense fallback only
        self.rerank = rerank  # reverse lookup's optional drug rerank
        self.reranker = reranker  # the free-form route's part rerank (None: lexical order)

    # -- section route ----------------------------------------------------------------------
    def by_section(self, drug_id: str, section_key: str, query: str | None = None) -> EvidenceBundle:
        parts = self.store.find_by_section(drug_id, section_key)
        if not parts:
            # Pooled text is a supplement to a section, never a stand-in for a missing one.
            return EvidenceBundle(decision="ABSTAIN", reason="section_absent")
        pooled = self.pooled_neighbours(drug_id, section_key, query) if query else []
        # decide() sees the pooled parts too: a quarantined neighbour makes the answer VERIFY_PDF.
        return decide([*parts, *pooled])

    def for_each_drug(
        self, drug_ids: Sequence[str], resolver: CatalogDrugResolver, one: Callable[[str], EvidenceBundle]
    ) -> EvidenceBundle:
        """The same question of several named drugs ("tác dụng phụ của loratadin và cetirizin",
        "paracetamol và ibuprofen dùng cho trẻ em được không"), at most `compared_drug_limit`,
        each answered by `one` and the parts decided together. A drug that yields nothing adds
        nothing, and the answer names it as unanswered."""
        known = [d for d in drug_ids if d in resolver.by_id][: self.policy.compared_drug_limit]
        bundles = [one(d) for d in known]
        parts = [item for bundle in bundles for item in bundle.evidence]
        if not parts:
            return bundles[0] if bundles else EvidenceBundle(decision="ABSTAIN", reason="unknown_drug")
        return decide(parts, [i for bundle in bundles for i in bundle.omitted_evidence_ids])

    def pooled_neighbours(self, drug_id: str, section_key: str, query: str) -> list[EvidenceItem]:
        """Parts of at most `max_lexical_pooled_sections` other sections of the same drug that
        match the question on at least `lexical_pool_min_score` distinct words, best section
        first. Exists for one measured case: a precaution question whose answer the monograph
        files only under contraindications."""
        policy = self.policy
        if not policy.pools(section_key):
            return []
        hits = self.store.search_lexical(
            query,
            drug_id=drug_id,
            exclude_sections={section_key} | policy.lexical_pool_excluded_sections,
            min_score=policy.lexical_pool_min_score,
            limit=policy.lexical_pool_hit_limit,
        )
        sections: list[str] = []
        for hit in hits:  # best first
            if hit.section_key not in sections and len(sections) < policy.max_lexical_pooled_sections:
                sections.append(hit.section_key)
        rank = {key: i for i, key in enumerate(sections)}
        kept = [hit for hit in hits if hit.section_key in rank and hit.drug_id == drug_id]
        return sorted(kept, key=lambda h: (rank[h.section_key], h.part_index))

    # -- drug overview ----------------------------------------------------------------------
    def overview(self, drug_id: str, intro_only: bool = True) -> EvidenceBundle:
        sections = INTRO_SECTIONS if intro_only else None
        items = self.store.find_by_drug(drug_id, chunk_kind="prose", section_keys=sections)
        if not items:
            return EvidenceBundle(decision="ABSTAIN", reason="insufficient_retrieval_score")
        return decide(label_sections(items))

    # -- free-form question (duocthu.retrieval.freeform) -----------------------------------------------
    def free_form(self, drug_id: str, query: str, deadline: Deadline | None = None) -> EvidenceBundle:
        """The drug's prose parts ordered for the question (reranked, else lexically), the top
        `rerank_top_k` packed to `max_context_tokens`; the bundle names the ordering used."""
        return free_form(self.store, drug_id, query, self.policy, self.reranker, deadline)

    def with_contraindications(self, bundle: EvidenceBundle, drug_id: str) -> EvidenceBundle:
        """A population question's answer with the drug's whole contraindication section, whatever
        the ordering ranked: extra words in the question must never rank it out."""
        return _with_parts(bundle, self.store.find_by_section(drug_id, CONTRAINDICATION_SECTION))

    def with_medicines_taken(
        self, bundle: EvidenceBundle, drug_id: str, frame: QueryFrame, resolver: CatalogDrugResolver
    ) -> EvidenceBundle:
        """ "Đang uống warfarin và digoxin … có dùng được ibuprofen không?": the drug's interaction
        parts about the medicines the patient takes (those stage 2's interaction facet finds),
        whatever the ordering ranked."""
        if not frame.patient_context.current_medications:
            return bundle
        stage_two = retrieve_patient_drug_context(self.store, resolver, [drug_id], frame, self.policy)
        parts = [item for item in stage_two.evidence if item.section_key == INTERACTION_SECTION]
        return _with_parts(bundle, parts)

    # -- reverse lookup (duocthu.retrieval.reverse) ----------------------------------------------------

    def by_indication(self, indication: str | None, deadline: Deadline | None = None) -> EvidenceBundle:
        """Condition -> drugs: the chỉ định keyword pass, the dense fallback only when it finds
        nothing; ranked drugs (max score per drug) with their evidence, capped by the policy."""
        return retrieve_by_indication(
            self.store, indication, self.policy, embedder=self.embedder, rerank=self.rerank, deadline=deadline
        )

    # -- entry point ------------------------------------------------------------------------
    def retrieve_framed(
        self,
        drug_id: str,
        section_key: str | None,
        query: str | None = None,
        is_overview: bool = True,
        deadline: Deadline | None = None,
    ) -> EvidenceBundle:
        """A named section takes the section route. Without one: the intro overview for a
        drug_overview turn (is_overview, the default: a bare drug name); else the free-form route
        for the question, or, with no question to order by, every prose section in book order."""
        if section_key:
            return self.by_section(drug_id, section_key, query)
        if not is_overview and query and query.strip():
            return self.free_form(drug_id, query, deadline)
        return self.overview(drug_id, intro_only=is_overview)

    # -- interactions and patient safety (issue 9) --------------------------------------------
    def with_patient_safety(
        self, stage_one: EvidenceBundle, frame: QueryFrame, resolver: CatalogDrugResolver, said: str = ""
    ) -> EvidenceBundle:
        """A reverse lookup's bundle plus the stage-2 safety facets of its ranked drugs for the
        patient the frame describes (duocthu.retrieval.safety); stage one as it is without a patient."""
        return with_patient_safety(stage_one, self.store, resolver, frame, self.policy, said)

    # -- a plan -> the evidence of every ask, in one call (chat, the state machine and the retrieve
    # function share it); what the turn means was decided by the plan
    def gather(
        self, plan: Plan, resolver: CatalogDrugResolver, deadline: Deadline | None = None
    ) -> GatheredEvidence:
        answers: list[AskEvidence] = []
        sections: list[WholeSection] = []
        for index, ask in enumerate(plan.asks):
            if ask.kind == "whole_sections":
                sections += [
                    WholeSection(drug_id=d, section_key=k, parts=tuple(self.store.find_by_section(d, k)))
                    for d, k in ask.sections
                ]
            else:
                bundle = self._answer(ask, plan.frame, resolver, deadline, plan.reading.text)
                lines = self._lines(ask, plan, resolver)
                barring = self._barring(ask, plan, resolver)
                if barring:  # never its dose as an option for a patient its contraindications name
                    # a dose was all it read: the contraindications answer in its place
                    only_dose = all(item.section_key == DOSE_SECTION for item in bundle.evidence)
                    base = self.with_contraindications(bundle, ask.drugs[0]) if only_dose else bundle
                    bundle = without_dose(base, barring)
                    bundle = with_state_alternatives(bundle, self.store, resolver, ask.drugs[0], plan.frame)
                    lines = tuple(line for line in lines if line.section_key != DOSE_SECTION or directs(line))
                asked = (plan.frame.attribute,) if plan.frame.attribute else ()
                if self._reads_the_book(ask, plan, bundle):
                    # the lines naming a drug asked that has no monograph first, else the question's own
                    question = _without_class(plan)
                    names = ask.unknown_names
                    named = book_lines(self.store, question, names, asked, ask.among) if names else ()
                    # the question's own words only when no section names what it asks
                    unlisted = bundle.decision == "ABSTAIN"
                    lines = named or (
                        book_lines(self.store, question, sections=asked, drugs=ask.among) if unlisted else ()
                    )
                said_no = bundle.decision == "ABSTAIN" and bundle.reason in READ_BEFORE_NO
                if lines and (said_no or ask.kind in WHICH_DRUG_ASKS):
                    bundle = self._parts_of(lines)  # read before saying no: a hit is quoted instead
                elif said_no and ask.with_patient and bundle.reason == "insufficient_retrieval_score":
                    # whether this patient may take it, asked with no words of its own ("còn Nexium
                    # thì sao?"): its contraindications answer, never "nothing relevant"
                    bundle = decide(list(self.store.find_by_section(ask.drugs[0], CONTRAINDICATION_SECTION)))
                answers.append(AskEvidence(ask=index, bundle=bundle, lines=lines))
        return GatheredEvidence(answers=tuple(answers), sections=tuple(sections))

    def _barring(self, ask: Ask, plan: Plan, resolver: CatalogDrugResolver) -> tuple[RankedLine, ...]:
        """The sentences that bar the one drug an ask names for the patient the frame describes:
        a clause of its contraindications about a drug they are allergic or reacted to, by name or
        class (`allergy_lines`), then a band their own numbers fall in, for every form
        (`barring_lines`), so no bar rests on a word alone ("thẩm phân" for a clearance of 40).
        No band bars when the patient's kidney, liver or pregnancy state is told without its level."""
        if (
            ask.kind not in ("section", "monograph")
            or len(ask.drugs) != 1
            or ask.drugs[0] not in resolver.by_id
        ):
            return ()
        drug = ask.drugs[0]
        context = plan.frame.patient_context
        told = (*context.allergies, *context.adverse_reactions)
        allergens, classes = allergens_told(self.store, resolver, context)
        # the kind of reaction: as this turn tells it, or as the conversation recorded it
        had = " ".join((plan.reading.text, *told))
        severe = severe_signs(context.adverse_reactions)
        bars = allergy_lines(self.store, drug, allergens, classes, had, severe) if allergens else []
        profile = PatientProfile.from_frame(plan.frame)
        if not profile.is_empty() and not profile.levels_not_told():
            bars += barring_lines(
                self.store, drug, profile, taking=drug in _medicines_taken(plan.frame, resolver)
            )
        return tuple(bars)

    @staticmethod
    def _reads_the_book(ask: Ask, plan: Plan, bundle: EvidenceBundle) -> bool:
        """A which-drug list that no drug's section names: the whole book is read before the reply
        says so. A name without a monograph asked with more words ("nguy cơ tiêu cơ vân nếu phối
        hợp với clarithromycin"): the sentences holding them all are read first, since its list
        names every drug whose section names it, whatever the finding. Never for a patient: the
        book's lines are not checked against them (a drug they are allergic to must not come back
        as a line). Nor for a catalogue drug's reverse lookup: its own section is the answer
        quoted first, and the reply says which sections were read when none names it."""
        no_list = bundle.reason == "insufficient_retrieval_score" or bool(ask.unknown_names)
        own = bool(ask.drugs)
        return ask.kind in WHICH_DRUG_ASKS and no_list and not own and plan.frame.patient_context.is_empty()

    def _parts_of(self, lines: Sequence[RankedLine]) -> EvidenceBundle:
        """The parts the lines stand in, in the lines' order."""
        wanted = list(dict.fromkeys(line.part_id for line in lines))
        sections = dict.fromkeys((line.drug_id, line.section_key) for line in lines)
        parts = {p.id: p for d, k in sections for p in self.store.find_by_section(d, k) if p.id in wanted}
        return decide([parts[i] for i in wanted if i in parts])

    def _lines(self, ask: Ask, plan: Plan, resolver: CatalogDrugResolver) -> tuple[RankedLine, ...]:
        """An ask about named catalogue drugs: their sentences that answer the question best,
        from their whole monographs, the routed section (or the ask's candidates) a prior."""
        if ask.kind == "book_lines":
            return book_lines(self.store, ask.query or plan.reading.text, ask.unknown_names)
        drugs = [d for d in ask.drugs if d in resolver.by_id]
        if ask.kind not in LINE_ASKS or not drugs:
            return ()
        # the ask's candidate sections when the plan names them, else the section routed to (and
        # the contraindications, for a question whether this patient may take the drug)
        candidates = ask.candidate_sections or (
            *((ask.section_key,) if ask.section_key else ()),
            *((CONTRAINDICATION_SECTION,) if ask.with_patient else ()),
            *((INTERACTION_SECTION,) if ask.kind == "together" else ()),
        )
        named = [(d, drug_names(resolver, d)) for d in drugs]
        together = [(d, names) for d, names in plan.names.items() if d not in drugs]
        # a drug without a monograph asked beside this one is named in its lines as any other is
        together += [(name, (name,)) for name in ask.unknown_names]
        # and so is one the patient reacted to or is allergic to, and its class: a cross-reaction
        together += reacted_to(self.store, resolver, plan.frame.patient_context, (*drugs, *plan.names))
        # a follow-up's standalone query goes on with the ask it continues: its words, weaker
        frame = plan.frame
        follow_up = frame.depends_on_previous_turn or frame.context_action == "continue"
        query = (frame.standalone_query or "") if follow_up else ""
        # with the formulary's words for the patient (the ask's query), and for the shorthand
        asked = ask.query or plan.reading.text
        question, carried = question_read(asked, plan.reading.formulary_words, query)
        # the message as written is what may ask several questions; the words after it are read
        # with each (the patient's, the formulary's)
        said = plan.reading.text if asked.startswith(plan.reading.text) else asked
        patient = replace(PatientProfile.from_frame(frame), taking=_medicines_taken(frame, resolver))
        # whether to use it: asked yes or no, or for this patient
        decision = plan.reading.yes_or_no or ask.with_patient
        also = question[len(said) :]
        reads_why = ask.reads_section == INDICATION_SECTION
        if ask.kind == "each_drug" and any(token_matches(word, "nào") for word in raw_words(said)):
            # drugs offered as a choice ("trong A, B, C thuốc nào …"): each is read alone, the others'
            # names as written no words of its lines (a salt's "kali" still is), each drug's best line
            # quoted, the best leading; drugs told together ("đang A, giờ cần B") are read together
            written = tuple(n for _, names in named for n in names if contains_phrase(said, n))
            found = [
                answering_lines(
                    self.store,
                    [(d, (*names, *written))],
                    said,
                    candidates,
                    together,
                    carried,
                    patient,
                    decision,
                    also,
                    reads_why,
                )
                for d, names in named
            ]
            # the drugs whose best line stands in the section asked first, then by score
            found.sort(key=lambda lines: (not lines or lines[0].section_key not in candidates, -_best(lines)))
            return with_continuations(self.store, firsts_then_rest(found, max(MAX_LINES, len(found))))
        lines = answering_lines(
            self.store, named, said, candidates, together, carried, patient, decision, also, reads_why
        )
        return with_continuations(self.store, lines)

    def _outside_class_asked(self, question: str | None, resolver: CatalogDrugResolver) -> tuple[str, ...]:
        """The catalogue drugs outside the class a which-drug question asks among (the class the
        book's class table knows, named just before "nào": "thuốc kháng vitamin K nào …", "NSAID
        nào …", a list's quick reply "Thuốc chống đông máu đường uống nào …"): never listed. A broad
        word ("thuốc giảm đau": an NSAID's "Loại thuốc" may not say it) narrows nothing, nor a class
        no catalogue drug is in."""
        asked = frozenset(classes_asked_among(question or ""))
        if not asked:
            return ()
        drugs = [d.drug_id for d in resolver.catalog.drugs]
        members = {d for d in drugs if drug_classes(self.store, d) & asked}
        return tuple(d for d in drugs if d not in members) if members else ()

    def _answer(  # `said`: the turn's words, read for the kind of a reaction the patient had
        self, ask: Ask, frame: QueryFrame, resolver: CatalogDrugResolver, deadline: Deadline | None, said: str
    ) -> EvidenceBundle:
        """One ask's evidence. The frame is read only for the patient and the finding asked."""
        if ask.kind == "book_lines":  # its lines are its evidence (`_lines`), or there is none
            return EvidenceBundle(decision="ABSTAIN", reason="insufficient_retrieval_score")
        if ask.kind == "together":
            return interaction_evidence(self.store, resolver, ask.drugs, ask.unknown_names)
        if ask.kind == "condition":
            found = only_among(self.by_indication(ask.query, deadline), ask.among)
            return self.with_patient_safety(found, frame, resolver, said) if ask.patient_check else found
        if ask.kind == "relation":
            # a catalogue drug asked ("thuốc nào tương tác với warfarin") is searched by its names
            named = [name for drug in ask.drugs for name in drug_names(resolver, drug)]
            outside = self._outside_class_asked(ask.query or frame.standalone_query, resolver)
            if ask.among:  # the drugs the question lists to choose among: no other is read
                outside = tuple(d.drug_id for d in resolver.catalog.drugs if d.drug_id not in ask.among)
            return retrieve_for_relation(
                self.store,
                frame,
                self.policy,
                rerank=self.rerank,
                candidates=ask.candidate_sections,
                names=(*ask.unknown_names, *dict.fromkeys(named)),
                skip_drugs=(*ask.drugs, *outside),
                first=_medicines_taken(frame, resolver),
                every_section=bool(ask.among),
            )
        if ask.kind == "each_drug":
            if ask.query is None:
                return self.for_each_drug(ask.drugs, resolver, self.overview)
            section, query = ask.section_key, ask.query

            def each(drug: str) -> EvidenceBundle:
                return self.retrieve_framed(drug, section, query, is_overview=False, deadline=deadline)

            return self.for_each_drug(ask.drugs, resolver, each)
        drug = ask.drugs[0]
        if ask.kind == "lines":  # a decline's reading: its lines, or nothing
            return EvidenceBundle(decision="ABSTAIN", reason="out_of_scope")
        if ask.kind == "uses":
            return with_section_reading(self.by_section(drug, INDICATION_SECTION), self.store, drug, frame)
        if ask.kind == "overview":
            return self.overview(drug)
        bundle = self.retrieve_framed(drug, ask.section_key, ask.query, is_overview=False, deadline=deadline)
        if ask.with_patient:
            bundle = self.with_contraindications(bundle, drug)
        if ask.with_patient or ask.kind == "section":
            # whatever section is asked of the drug, the medicines the patient takes are checked
            bundle = self.with_medicines_taken(bundle, drug, frame, resolver)
        if ask.reads_section:
            # "Ibuprofen có gây loét dạ dày không?": how its ADR section names the finding
            return with_section_reading(bundle, self.store, drug, frame)
        return bundle


def _without_class(plan: Plan) -> str:
    """A which-drug question's words without those of the class it asks among ("thuốc giảm đau hạ
    sốt nào …"): they name the drugs listed, not what the book's lines must say."""
    text, asked = plan.reading.text, plan.reading.asked_class
    if not asked:
        return text
    pattern = r"\W+".join(map(re.escape, asked.split()))
    found = re.search(rf"(?<!\w){pattern}(?!\w)", text, re.IGNORECASE)
    return f"{text[: found.start()]} {text[found.end() :]}" if found else text


def question_read(asked: str, formulary_words: str, query: str) -> tuple[str, str]:
    """The question the monograph's sentences are ranked for, and the words of the question a
    follow-up goes on from (what its standalone `query` says after the question as asked). The
    clinician's shorthand is read in the formulary's words too ("NaCl": "natri clorid"), less a
    section's name ("CCĐ"), which the candidate sections weigh, and so are the other wordings
    the formulary writes a finding in (`other_wordings`: "magie" is "magnesi")."""
    carried = query[len(asked) :] if query.startswith(asked) else ""
    return f"{asked} {content_words(formulary_words)} {other_wordings(asked)}".strip(), carried


def _with_parts(bundle: EvidenceBundle, parts: Sequence[EvidenceItem]) -> EvidenceBundle:
    """The bundle with `parts` it lacks put first, its ordering kept; an abstention as it is."""
    have = {item.id for item in bundle.evidence}
    missing = [p for p in parts if p.id not in have]
    if not missing or bundle.decision == "ABSTAIN":
        return bundle
    omitted = [i for i in bundle.omitted_evidence_ids if i not in {p.id for p in missing}]
    decided = decide([*missing, *bundle.evidence], omitted)
    return decided.model_copy(update={"ordering": bundle.ordering, "system_error": bundle.system_error})


def _medicines_taken(frame: QueryFrame, resolver: CatalogDrugResolver) -> frozenset[str]:
    """The catalogue drugs among the medicines the patient takes: a which-drug list names them
    first (what the patient takes is what a clinician checks first)."""
    taken = frame.patient_context.current_medications
    return frozenset(match.drug_id for name in taken for match in resolver.resolve(name))


def _best(lines: Sequence[RankedLine]) -> float:
    return lines[0].score if lines else 0.0
