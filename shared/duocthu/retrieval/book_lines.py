"""A which-drug question read across the book: the sentences of every monograph that answer it
best, ranked as one drug's lines are (`duocthu.retrieval.answering`), a few per drug."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from functools import cache

from duocthu.core.phrases import contains_phrase
from duocthu.core.sections import CONTRAINDICATION_SECTION, SECTION_HEADINGS
from duocthu.core.text import fold, folded_words
from duocthu.models.evidence import RankedLine
from duocthu.retrieval.answering import (
    FOLLOWER_SHARE,
    READ_LINES,
    SECTION_PRIOR,
    found,
    words_held,
)
from duocthu.retrieval.continuations import with_continuations
from duocthu.retrieval.question_words import question_pairs, question_tokens
from duocthu.store import VectorStore

# A which-drug question read across the book: the lines kept, and how many of them one drug may
# hold (the question asks for drugs, so one long monograph must not fill the list)
BOOK_LINES = 6
PER_DRUG = 2
# Read for a name without a monograph, every drug whose lines name it is an answer (which drugs
# interact with it): its first line whatever its score, as many lines as a phone screen holds
NAMING_LINES = 12


# Words by which a question names the book itself ("thuốc nào trong dược thư …"): no content of
# its own, and "thư" alone is read in "thụ thể", "thử"
_THE_BOOK = re.compile(r"\b(?:duoc thu(?: quoc gia)?|dtqg|chuyen luan|sach)\b")


@cache
def _heading_words() -> frozenset[str]:
    return frozenset(w for heading in SECTION_HEADINGS.values() for w in folded_words(heading))


def content_words(text: str) -> str:
    """The text without the words of section headings."""
    return " ".join(w for w in text.split() if not set(folded_words(w)) <= _heading_words())


def book_lines(
    store: VectorStore,
    question: str,
    naming: Sequence[str] = (),
    sections: Collection[str] = (),
    drugs: Sequence[str] = (),
) -> tuple[RankedLine, ...]:
    """The sentences of the whole book that answer a which-drug question best, found as a drug's
    are (`found`), those within FOLLOWER_SHARE of the best, at most PER_DRUG a drug; with `naming`,
    only those naming one of these words (a term the question names that no drug list holds), and
    then every drug naming it (at most NAMING_LINES). A
    line in one of `sections` (what the question asks of the drugs: their contraindications)
    has the candidate sections' prior, as a drug's lines have. With `drugs` (the drugs a question
    lists to choose among), only their sentences are read."""
    tokens = question_tokens(question, ())
    # the words naming a section ("chống chỉ định", "tương tác") stand in every monograph, and those
    # naming the book itself in none: they rank, but a line must hold two of the question's other
    # words to say which drugs
    book = set(question_tokens(" ".join(_THE_BOOK.findall(fold(question).casefold())), ()))
    content = [t for t in tokens if t not in _heading_words() and t not in book]
    if len(content) < 2:  # one word read across 40 to 700 monographs is no question
        return ()
    query = [*tokens, *question_pairs(question, tokens)]
    if drugs:
        found_in = [line for d in drugs for line in store.search_lines(query, drug_id=d, limit=READ_LINES)]
        hits = sorted(found_in, key=lambda line: -line.score)
    else:
        hits = store.search_lines(query, drug_id=None, limit=READ_LINES)
    kept = [line for line in hits if found(line, tokens) and words_held(line, content) >= 2]
    kept = [line for line in kept if not naming or any(contains_phrase(line.text, n) for n in naming)]
    if not kept:
        return ()
    prior = [line.model_copy(update={"score": line.score * (1 + SECTION_PRIOR)}) for line in kept]
    kept = sorted(
        (p if line.section_key in sections else line for line, p in zip(kept, prior, strict=True)),
        key=lambda line: -line.score,
    )  # stable: ties keep the store's order
    floor, most = FOLLOWER_SHARE * kept[0].score, NAMING_LINES if naming else BOOK_LINES
    per_drug: dict[str, int] = {}
    chosen: list[RankedLine] = []
    for line in kept:
        # read for a name, a drug's first line naming it counts whatever its score
        first = bool(naming) and line.drug_id not in per_drug
        if (line.score < floor and not first) or per_drug.get(line.drug_id, 0) >= PER_DRUG:
            continue
        per_drug[line.drug_id] = per_drug.get(line.drug_id, 0) + 1
        chosen.append(line)
    # each line says what it is about (the sentence it points back to); a list adds nothing more
    return with_continuations(store, with_contraindications(chosen[:most], kept), after=False)


def with_contraindications(chosen: Sequence[RankedLine], found: Sequence[RankedLine]) -> list[RankedLine]:
    """The lines chosen, each drug's followed by its best contraindication line among those the
    question's words found when none of its chosen lines is one: what a drug's contraindications
    say of what was asked ("Người mang alen HLA-B*1502 không được bắt đầu điều trị …") is never
    left out behind a caution that words the question more closely."""
    # the drugs whose contraindication line is quoted or was looked for
    done = {line.drug_id for line in chosen if line.section_key == CONTRAINDICATION_SECTION}
    out: list[RankedLine] = []
    for line in chosen:
        out.append(line)
        if line.drug_id in done:
            continue
        done.add(line.drug_id)
        bars = (x for x in found if x.drug_id == line.drug_id and x.section_key == CONTRAINDICATION_SECTION)
        out += [bar] if (bar := next(bars, None)) else []
    return out
