"""A which-drug question that names its candidates ("Trong A, B, C: kháng sinh nào cần tránh ở BN
QT kéo dài?", "gliclazid hay metformin, thuốc nào không dùng khi cho con bú?"): the drugs listed are
the ones to choose among, not drugs asked about together.

The list is found by its form: two or more catalogue names written as alternatives (commas, "và",
"hay", "hoặc", a slash) in a message that asks which one ("… nào"). The rest of the message is
what each candidate is asked about, read as the which-drug question it is on its own; its lookup
is then restricted to the candidates (`Ask.among`), and the reply says of each one whether its
section names the finding. Medicines the patient is told to take are facts, never candidates,
unless the list is opened as a choice ("trong các thuốc đang dùng kèm (A, B, C) thuốc nào …").
"""

from __future__ import annotations

import re

from duocthu.catalog.resolver import DrugMatch
from duocthu.core.populations import population_named
from duocthu.core.sections import RELATION_SECTIONS, SAFETY_SECTIONS
from duocthu.core.text import fold, nfc
from duocthu.models.plan import Plan
from duocthu.understanding.reading import asks_which_drug
from duocthu.understanding.tags import MessageTags

MIN_CANDIDATES = 2
_TOKEN = re.compile(r"\w+", re.UNICODE)
# Only separators of alternatives between two names: punctuation, "và", "hay", "hoặc" ("hay là")
_ALTERNATIVES = re.compile(r"[\s,;/|+]*(?:(?:và|hay|hoặc)(?:\s+là)?[\s,]*)?", re.IGNORECASE)
# "cái nào", "loại nào", "kháng sinh/thuốc … nào" (`asks_which_drug`), a class before "nào"
# "trong", "trong số các", "trong 4 thuốc" right before the list
_OPENING = re.compile(
    r"\btrong(?:\s+số)?(?:\s+(?:các|những))?(?:\s+\d+)?(?:\s+(?:thuốc|loại))?[\s:(]*$", re.IGNORECASE
)
# A list right after one of these is of drugs asked together
_TOGETHER = frozenset({"voi", "cung", "kem", "chung"})
# A list opened by "trong" at most this many words before it is a choice, its drugs taken or not
_OPENING_WORDS = 8
# A choice among the drugs just listed, pointed back to after them ("Trong mấy thuốc này …", "thuốc
# nào trong số đó …", "trong 3 thuốc trên"): the list is the candidates, taken or not
_POINTED_BACK = re.compile(
    r"\btrong\s+(?:số\s+)?(?:(?:mấy|các|những|\d+)\s+)?(?:(?:thuốc|loại)\s+)?(?:này|đó|ấy|trên|kể\s+trên)\b",
    re.IGNORECASE,
)
_WHICH_ONE = re.compile(r"\b(?:cái|loại|con|thằng)\s+nào\b", re.IGNORECASE)


def candidates_listed(tags: MessageTags) -> tuple[DrugMatch, ...]:
    """The longest run of catalogue names written as alternatives in a message asking which one;
    () when there is none, when the message asks no "which", or when any of them is a medicine
    the patient is told to take."""
    text = nfc(tags.text)
    if not (asks_which_drug(text) or _WHICH_ONE.search(text)):
        return ()
    spans = [m.span() for m in _TOKEN.finditer(text)]
    taken = tags.facts.current_medication_starts
    best: list[DrugMatch] = []
    run: list[DrugMatch] = []
    for match in sorted(tags.matches, key=lambda m: m.start):
        if run and _ALTERNATIVES.fullmatch(text[spans[run[-1].end - 1][1] : spans[match.start][0]]):
            run.append(match)
        else:
            run = [match]
        if len(run) > len(best):
            best = list(run)
    if len(best) < MIN_CANDIDATES:
        return ()
    if _opened(text, spans, best) or _POINTED_BACK.search(text[spans[best[-1].end - 1][1] :]):
        return tuple(best)  # "trong các thuốc đang dùng kèm (A, B, C) …": a choice, taken or not
    if any(m.start in taken for m in best) and not _what_they_bring_on(tags, best):
        return ()
    if best[0].start and fold(tags.cues.tokens[best[0].start - 1]) in _TOGETHER:
        return ()  # "tương tác với A và B": the drugs asked together
    return tuple(best)


def _what_they_bring_on(tags: MessageTags, listed: list[DrugMatch]) -> bool:
    """After the medicines told as taken, "thuốc nào gây X" with no class asked among: which of
    them brings X on (a reaction is asked of what the patient takes, not of a drug to add)."""
    cues = tags.cues
    return not cues.has("drug_class") and any(
        c.value == "adverse_effect" and c.start >= listed[-1].end for c in cues.all("reverse_relation")
    )


def _opened(text: str, spans: list[tuple[int, int]], listed: list[DrugMatch]) -> bool:
    """The list opened as a choice ("trong các thuốc đang dùng (A, B, C) thuốc nào …"): "trong"
    among the few words before it, in its clause. Medicines taken so listed are the candidates."""
    before = text[: spans[listed[0].start][0]]
    clause = re.split(r"[.;:?!]", before)[-1]
    return any(word.lower() == "trong" for word in _TOKEN.findall(clause)[-_OPENING_WORDS:])


def without_candidates(tags: MessageTags, listed: tuple[DrugMatch, ...]) -> str:
    """The message (in the formulary's words) with the list of candidates taken out: what each of
    them is asked about."""
    text = nfc(tags.text)
    spans = [m.span() for m in _TOKEN.finditer(text)]
    start, end = spans[listed[0].start][0], spans[listed[-1].end - 1][1]
    # the words opening the list ("trong 4 thuốc") and the punctuation closing it go with it
    before = _OPENING.sub("", text[:start])
    return re.sub(r"\s{2,}", " ", f"{before} {text[end:].lstrip(' :;,-–—')}").strip()


# The asks that look a finding up across the book, which candidates restrict
_LOOKUPS = frozenset({"relation", "condition"})


def asked_among(plan: Plan, among: tuple[str, ...]) -> Plan | None:
    """The plan of the message's rest with its lookup restricted to the candidates (each part's,
    for several asks); None when no part of it looks up a finding it could read (the candidates
    are then asked about as the whole message names them)."""
    parts = plan.parts or (plan,)
    if not any(_looks_up(p) for p in parts):
        return None
    if plan.parts:
        chosen = tuple(_restricted(p, among) for p in plan.parts)
        return plan.model_copy(update={"parts": chosen, "asks": tuple(a for p in chosen for a in p.asks)})
    return _restricted(plan, among)


def _looks_up(plan: Plan) -> bool:
    """The rest asks a lookup of a finding it names: a condition a table knows, a population (or the
    pregnancy or nursing told), or a name searched; words read as no known finding are what the
    list left behind, not a question."""
    frame, context = plan.frame, plan.frame.patient_context
    # a finding the tables know, or any finding a relation is read of ("tránh … nào": the words
    # are searched as written), unless they tell what the patient reacted to (a fact, read as one)
    reacted = bool(context.allergies or context.adverse_reactions)
    related = bool(RELATION_SECTIONS.get(frame.condition_relation or "")) and not reacted
    known = frame.condition is not None and (
        bool(frame.condition.normalized) or population_named(frame.condition.text) is not None or related
    )
    who = frame.population is not None or context.pregnancy or context.breastfeeding
    # the lookup is what the rest asks, not a list beside a named drug's own section
    ask = plan.main_ask
    named = ask is not None and bool(ask.unknown_names or ask.drugs)
    if ask is None or ask.kind not in _LOOKUPS or not (known or bool(who) or named):
        return False
    # a finding no section lists drugs by ("thuốc nào phải chỉnh liều khi suy thận"): each
    # candidate's own section answers it, as the whole message asks
    return bool(
        RELATION_SECTIONS.get(frame.condition_relation or "")
        or ask.kind != "relation"
        or set(ask.candidate_sections) & set(SAFETY_SECTIONS)
    )


def _restricted(plan: Plan, among: tuple[str, ...]) -> Plan:
    asks = tuple(a.model_copy(update={"among": among}) if a.kind in _LOOKUPS else a for a in plan.asks)
    return plan.model_copy(update={"asks": asks})


__all__ = ["asked_among", "candidates_listed", "without_candidates"]
