"""The understanding tables (data/understanding_cues.tsv, data/clinical_lexicon.tsv): every row is
well formed, and no row is one a mechanism already reads (the tables must not grow back rows that
can never decide a turn)."""

from __future__ import annotations

from typing import get_args

from duocthu.catalog.names import foreign_word
from duocthu.catalog.ordinary_words import ordinary_word
from duocthu.catalog.world_drugs import world_drug
from duocthu.core.sections import SECTION_ORDER, SECTION_PHRASES
from duocthu.core.tables import table_records
from duocthu.core.text import words
from duocthu.core.vocabulary import CONDITION_RELATIONS, POPULATIONS, ROUTES, TURN_TYPES
from duocthu.understanding.cues import _TELLS_TOO, GAP, CueKind, _cue_words
from duocthu.understanding.lexicon import formulary_wording
from duocthu.understanding.product_names import not_a_common_word

CUE_ROWS = table_records("understanding_cues.tsv")
CUE_KINDS = frozenset(get_args(CueKind))
GAPPED_KINDS = ("section", "reverse_relation")  # a product, a class or a population sits in their gaps


def _value_errors(kind: str, value: str) -> bool:
    """Whether a row's value is not one its kind may hold."""
    if kind == "named_drug":
        turn_type, _, rest = value.partition(":")
        attribute, _, relation = rest.partition(":")
        return (
            turn_type not in TURN_TYPES
            or bool(attribute and attribute not in SECTION_ORDER)
            or bool(relation and relation not in CONDITION_RELATIONS)
        )
    allowed = {
        "population": POPULATIONS,
        "route": ROUTES,
        "section": SECTION_ORDER,
        "modal_section": SECTION_ORDER,
        "reverse_relation": CONDITION_RELATIONS,
    }
    return kind in allowed and value not in allowed[kind]


def test_every_cue_row_is_well_formed() -> None:
    bad = []
    for row in CUE_ROWS:
        kind, value, phrase = row["kind"], (row.get("value") or "").strip(), row["phrase"]
        pieces = phrase.split(GAP)
        gapped_wrong = GAP in phrase and (
            kind not in GAPPED_KINDS or len(pieces) < 2 or not all(words(p) for p in pieces)
        )
        if kind not in CUE_KINDS or _value_errors(kind, value) or gapped_wrong:
            bad.append(row)
    assert bad == []


def _words_of(phrase: str) -> tuple[str, ...]:
    return tuple(w.casefold() for w in _cue_words(words(phrase))[0])


def _holds(part: tuple[str, ...], inner: tuple[str, ...]) -> bool:
    return any(part[i : i + len(inner)] == inner for i in range(len(part) - len(inner) + 1))


def test_no_gapped_form_holds_a_contiguous_cue_that_pre_empts_it() -> None:
    """A gapped form counts only where no contiguous cue (a section's name, a section or caution
    form; for a relation, a relation form) is found: one holding such a cue in a part never decides."""
    pre_empting = {"section": {"section", "modal_section"}, "reverse_relation": {"reverse_relation"}}
    contiguous = {
        kind: {_words_of(r["phrase"]) for r in CUE_ROWS if GAP not in r["phrase"] and r["kind"] in kinds}
        for kind, kinds in pre_empting.items()
    }
    dead = []
    for row in CUE_ROWS:
        if GAP not in row["phrase"]:
            continue
        for part in map(_words_of, row["phrase"].split(GAP)):
            named = row["kind"] == "section" and bool(SECTION_PHRASES.matches(list(part)))
            if named or any(_holds(part, cue) for cue in contiguous[row["kind"]]):
                dead.append(row["phrase"])
    assert dead == []


def test_no_name_variant_is_an_ordinary_word() -> None:
    """An ordinary word never begins an unknown name, so it needs no row to go on a product's name."""
    ordinary = [
        r["phrase"]
        for r in CUE_ROWS
        if r["kind"] == "name_variant" and foreign_word(r["phrase"]) and not not_a_common_word(r["phrase"])
    ]
    assert ordinary == []


def test_no_kept_term_of_the_lexicon_is_an_ordinary_word_or_a_drug() -> None:
    """A term kept as written only keeps a word from beginning an unknown name: an ordinary word or
    a drug outside the catalogue is read so without it."""
    covered = [
        r["term"]
        for r in table_records("clinical_lexicon.tsv")
        if not r["formulary"].strip() and (ordinary_word(r["term"]) or world_drug(r["term"]))
    ]
    assert covered == []


def test_no_cue_row_holds_a_mark_no_word_keeps() -> None:
    """Cues are matched on words: a colon or a question mark in a row is dropped, and the row
    matches its words anywhere ("do thuốc:" read every "do thuốc" as a which-drug list)."""
    phrases = [r["phrase"].replace(GAP, " ") for r in CUE_ROWS]
    marked = [p for p in phrases if " ".join(words(p)) != " ".join(p.casefold().split())]
    assert marked == []


def test_no_cue_row_holds_words_the_lexicon_rewords() -> None:
    """Cues are read on the message in the formulary's words (`lexicon.formulary_wording`): a row
    holding a term the lexicon replaces can never match."""
    reworded = [
        r["phrase"] for r in CUE_ROWS if formulary_wording(r["phrase"]).casefold() != r["phrase"].casefold()
    ]
    assert reworded == []


def test_no_row_repeats_a_cue_that_tells_its_kind_already() -> None:
    """A cue that tells another kind by the same words (`cues._TELLS_TOO`: a state's population, a
    drug pronoun) makes a row of that kind with those words a second copy."""
    told = {
        (_TELLS_TOO[(r["kind"], (r.get("value") or "").strip())], _words_of(r["phrase"]))
        for r in CUE_ROWS
        if (r["kind"], (r.get("value") or "").strip()) in _TELLS_TOO
    }
    copies = [r["phrase"] for r in CUE_ROWS if (r["kind"], _words_of(r["phrase"])) in told]
    assert copies == []


def test_a_symbol_of_the_lexicon_joins_only_the_words_either_side() -> None:
    # "+" between two medicines is their combination; a result in brackets beside one word is not
    assert formulary_wording("Tegretol + thuốc tránh thai") == "Tegretol cùng thuốc tránh thai"
    assert formulary_wording("Chlamydia (+), HBsAg (+)") == "Chlamydia (+), HBsAg (+)"


def test_ward_abbreviations_of_conditions_read_as_the_formularys_words() -> None:
    # the conditions' sections are searched in the book's words, never the ward's letters
    said = formulary_wording("BN bị XHTH, TBMMN cũ, STM, VGB")
    assert said == "bệnh nhân bị xuất huyết tiêu hóa, tai biến mạch máu não cũ, suy thận mạn, viêm gan B"
