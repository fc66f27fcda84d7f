"""The monograph section vocabulary and the longest-phrase section resolver.

Data lives in `data/section_keys.tsv` (keys in book order, headings, intro flag, prompt glosses)
and `data/section_phrases.tsv` (question phrases). Adding a phrasing is adding a row.
"""

from __future__ import annotations

from duocthu.core.phrases import PhraseIndex
from duocthu.core.tables import table_records
from duocthu.core.text import words

_ROWS = sorted(table_records("section_keys.tsv"), key=lambda r: int(r["order"]))

SECTION_KEYS: tuple[str, ...] = tuple(r["section_key"] for r in _ROWS)
SECTION_ORDER: dict[str, int] = {key: i for i, key in enumerate(SECTION_KEYS)}
SECTION_HEADINGS: dict[str, str] = {r["section_key"]: r["heading"] for r in _ROWS}
INTRO_SECTIONS: frozenset[str] = frozenset(r["section_key"] for r in _ROWS if r["in_overview"] == "yes")
SECTION_KEY_HINTS: dict[str, str] = {r["section_key"]: r["hint"] for r in _ROWS}

# The sections the code itself names.
INDICATION_SECTION = "chi_dinh"
CAUTION_SECTION = "than_trong"
CONTRAINDICATION_SECTION = "chong_chi_dinh"
ADR_SECTION = "tac_dung_khong_mong_muon"
ADR_MANAGEMENT_SECTION = "huong_dan_cach_xu_tri_adr"
DOSE_SECTION = "lieu_luong_va_cach_dung"
INTERACTION_SECTION = "tuong_tac_thuoc"
OVERDOSE_SECTION = "qua_lieu_va_xu_tri"
CLASS_SECTION = "loai_thuoc"
PHARMACOLOGY_SECTION = "duoc_ly_va_co_che_tac_dung"
PREGNANCY_SECTION = "thoi_ky_mang_thai"
BREASTFEEDING_SECTION = "thoi_ky_cho_con_bu"
# The section a pregnant or nursing patient has of their own, by population
STATE_SECTIONS = {"phu_nu_co_thai": PREGNANCY_SECTION, "phu_nu_cho_con_bu": BREASTFEEDING_SECTION}
_NAMED = {
    PREGNANCY_SECTION,
    BREASTFEEDING_SECTION,
    INDICATION_SECTION,
    CONTRAINDICATION_SECTION,
    ADR_SECTION,
    ADR_MANAGEMENT_SECTION,
    DOSE_SECTION,
    INTERACTION_SECTION,
    OVERDOSE_SECTION,
}
if not set(SECTION_KEYS) >= _NAMED:  # checked at import, also under python -O
    raise ValueError(f"section_keys.tsv lacks {sorted(_NAMED - set(SECTION_KEYS))}")
# Which drugs cause / exclude / treat a condition is answered from that relation's own section,
# never another: "thuốc nào gây ho khan" must not list the drugs that treat a cough.
RELATION_SECTIONS: dict[str, str] = {
    "adverse_effect": ADR_SECTION,
    "contraindication": CONTRAINDICATION_SECTION,
    "indication": INDICATION_SECTION,
}
# The safety sections a which-drugs question may name instead of a relation ("thuốc nào cần thận
# trọng ở X", "… tương tác với X"): read across drugs, the section is the relation.
SAFETY_SECTIONS: tuple[str, ...] = (
    CONTRAINDICATION_SECTION,
    CAUTION_SECTION,
    INTERACTION_SECTION,
    PREGNANCY_SECTION,
    BREASTFEEDING_SECTION,
)


def _load_phrases() -> PhraseIndex[str]:
    index: PhraseIndex[str] = PhraseIndex()
    for row in table_records("section_phrases.tsv"):
        key = row["section_key"]
        if key not in SECTION_ORDER:
            raise ValueError(f"section_phrases.tsv: unknown section key {key!r}")
        index.add(row["phrase"], key)
    return index


SECTION_PHRASES: PhraseIndex[str] = _load_phrases()


def resolve_section(text: str) -> str | None:
    """The section a question names, by the longest matching phrase; None when nothing matches.

    Longest wins across the whole table, so "chống chỉ định" is never read as "chỉ định" and
    "quá liều" never as "liều". Ties in length go to the earliest position in the question.
    """
    tokens = words(text)
    found = SECTION_PHRASES.matches(tokens)
    if not found:
        return None
    best = min(found, key=lambda m: (-m.length, m.start))
    # "chông chỉ định" (a wrong mark) matches only "chỉ định" exactly, yet folds to the longer
    # "chống chỉ định": the two mean opposite things, so an ambiguous reading is no match.
    for loose in SECTION_PHRASES.matches(tokens, folded_only=True):
        if loose.length > best.length and loose.value != best.value:
            return None
    return best.value
