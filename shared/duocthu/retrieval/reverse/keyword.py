"""The keyword pass of a reverse lookup over the store: the prose parts of a section that name a
phrase, each read by `duocthu.retrieval.reverse.reading`, scored.

`find_by_indication` reads every chi_dinh prose part that holds the phrase and keeps a part only
when the phrase stands in it as a contiguous run of whole words: never a substring (with the
diacritics stripped, short words sit inside unrelated ones), never a token subset (a phrase of
common filler words, each present somewhere in a real chỉ định, once matched that way and
reached generation). A part scores `1 + 1/(1 + position) + 1/(1 + words/40)`: an early, concise
mention ranks first. A phrase is also searched in the formulary's own wordings of it
(data/formulary_wordings.tsv: "hạ kali máu" is "hạ kali huyết").
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from duocthu.core.sections import INDICATION_SECTION, SECTION_PHRASES
from duocthu.core.text import stop_words, words
from duocthu.models.evidence import EvidenceItem
from duocthu.retrieval.reverse.reading import (
    MentionReading,
    allows_lenient,
    first_mention,
    is_searchable,
    states_effect,
)
from duocthu.retrieval.reverse.wordings import wordings_of
from duocthu.store import VectorStore
from duocthu.store.base import rank_hits


def indication_score(position: int, words_in_part: int) -> float:
    """Reference 09's score: rewards an early (position, in words) and concise mention."""
    return 1 + 1 / (1 + position) + 1 / (1 + words_in_part / 40)


# A chỉ định mention right after a cause or patient lead ("co giật do sốt", "ở người tăng huyết
# áp có kèm đái tháo đường"; data/patient_state_leads.tsv) ranks the drug below every drug that
# names the condition directly; it is still listed with them, because the lead may introduce
# what the drug is for ("dự phòng đột quỵ ở người rung nhĩ"). A symptom named only inside another
# disease's name ("sốt thương hàn", "đau thắt ngực" for "sốt", "đau") is no use of the drug for
# it: a keyword answer lists that drug apart (`incidental_drugs`). Direct mentions score above 1
# (`indication_score` > 1), secondary ones above SECONDARY_WEIGHT, incidental ones at most that.
SECONDARY_WEIGHT = 0.3
INCIDENTAL_WEIGHT = 0.1
_WEIGHTS: Mapping[MentionReading, float] = {
    "direct": 1.0,
    "secondary": SECONDARY_WEIGHT,
    "incidental": INCIDENTAL_WEIGHT,
}


def find_by_indication(
    store: VectorStore,
    indication: str,
    *,
    section_key: str = INDICATION_SECTION,
    limit: int | None = None,
    effect: bool = False,
    skip_drugs: Collection[str] = frozenset(),
) -> list[EvidenceItem]:
    """Prose parts of `section_key` holding the indication in any of its wordings (`wordings_of`),
    scored, best first (ties in book order), at most `limit`. Each wording is matched exactly
    first; only when no part holds it as written, and the wording allows it, word by word under
    the diacritics rule. `effect`: a part counts only where it states the finding as the drug's
    effect (`reading.states_effect`: Thận trọng and Dược lý for a which-drugs-cause lookup).
    `skip_drugs`: drugs already listed, whose parts are not read (across the whole book most
    candidates of a later section belong to them)."""
    best: dict[str, EvidenceItem] = {}
    for wording in wordings_of(indication) if is_searchable(indication) else ():
        for hit in _find_asked_phrase(store, wording, section_key, effect, skip_drugs):
            if hit.id not in best or hit.score > best[hit.id].score:
                best[hit.id] = hit
    ranked = rank_hits(list(best.values()))
    return ranked if limit is None else ranked[:limit]


def _find_asked_phrase(
    store: VectorStore,
    wording: str,
    section_key: str,
    effect: bool = False,
    skip_drugs: Collection[str] = frozenset(),
) -> list[EvidenceItem]:
    phrase = words(wording)
    if not phrase:
        return []
    candidates = store.find_prose(wording, section_key=section_key, skip_drugs=skip_drugs)
    hits: list[EvidenceItem] = []
    for lenient in (False, True):
        if lenient and (hits or not allows_lenient(phrase)):
            break
        for part in candidates:
            reading: MentionReading = "direct"
            if effect:
                position = states_effect(part.item.text, wording, lenient)
            else:
                position, reading = first_mention(part.item.text, wording, section_key, lenient)
            if position >= 0:
                score = _WEIGHTS[reading] * indication_score(position, part.words)
                hits.append(part.scored(score))
    return hits


# The shortest run of a finding's words searched for in place of the whole: one word alone is
# read across every drug's section and says no finding ("nặng", "phản ứng").
SHORTEST_RUN = 2


def written_run(store: VectorStore, finding: str, section_keys: Sequence[str]) -> str | None:
    """The longest run of the finding's words (at least SHORTEST_RUN, not the whole) that one of
    the sections writes somewhere in the book, the later of two equally long: a finding comes
    last in the clause asking for it ("làm nặng nhược cơ"), after the words that ask. A run opens
    and closes on a word that is no stop word, and never holds a section's name ("thận trọng
    vì": the name stands in every monograph and says no finding)."""
    tokens, stops = words(finding), stop_words()
    for length in range(len(tokens) - 1, SHORTEST_RUN - 1, -1):
        for start in range(len(tokens) - length, -1, -1):
            run = tokens[start : start + length]
            if run[0] in stops or run[-1] in stops or SECTION_PHRASES.matches(run):
                continue
            phrase = " ".join(run)
            if any(store.find_prose(phrase, section_key=key) for key in section_keys):
                return phrase
    return None
