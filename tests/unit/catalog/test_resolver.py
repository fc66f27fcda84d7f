"""The drug resolver (issue 4): exact spans under the diacritics rule, fuzzy candidates that keep
invented names away from real drugs, names for prompts. Each case runs on the sample formulary,
on the ATC scale source from the team kit, and on a small catalogue of traps built here."""

from __future__ import annotations

import re
import unicodedata

import pytest
from duocthu.catalog.artifact import Catalog, CatalogDrug
from duocthu.catalog.names import alias_kind, common_words, is_vietnamese_syllable
from duocthu.catalog.resolver import CatalogDrugResolver, Suggestion
from duocthu.core.text import fold, token_matches, words
from duocthu.models.source import Monograph
from duocthu.tools.scale_source import atc_monographs
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import ATC_CSV
from tests.factories import resolved_ids

# Brand lists really contain DAT (diphtheria antitoxin) and Oxy (oxytocin); the rest are built to
# exercise one rule each.
TRAPS = (
    CatalogDrug(drug_id="oxytocin", title="Oxytocin", aliases=("Syntocinon", "Oxy")),
    CatalogDrug(drug_id="diphtheria_antitoxin_dat", title="Diphtheria antitoxin (DAT)", aliases=("DAT",)),
    CatalogDrug(drug_id="hydrogen_peroxide", title="Hydrogen peroxide", aliases=("Oxy già",)),
    CatalogDrug(drug_id="theophylline", title="Theophylline", aliases=("Theo",)),
    CatalogDrug(drug_id="sat_sulfat", title="Sắt sulfat", aliases=("Sắt",)),
    CatalogDrug(drug_id="than_hoat", title="Than hoạt", aliases=("than hoạt tính",)),
    CatalogDrug(drug_id="acid_hydrocloric", title="Acid hydrocloric", aliases=("Acid",)),
    CatalogDrug(drug_id="acid_acetylsalicylic", title="Acid acetylsalicylic", aliases=("aspirin",)),
    CatalogDrug(drug_id="omeprazol", title="Omeprazol", aliases=("Losec", "Mopral")),
    CatalogDrug(drug_id="omeprazol_iv", title="Omeprazol tiêm", aliases=("Losec",)),
    CatalogDrug(drug_id="mesalazin", title="Mesalazin", aliases=("5-ASA", "Ace kid 80", "Pentasa")),
)
INVENTIONS = ("aspirinol", "paracetamolex", "ibuprofenol", "warfarinex", "omeprazolin", "metforminex")


@pytest.fixture(scope="module")
def sample(sample_records: list[Monograph]) -> CatalogDrugResolver:
    return CatalogDrugResolver(Catalog.from_records(sample_records, "sample"))


@pytest.fixture(scope="module")
def traps() -> CatalogDrugResolver:
    return CatalogDrugResolver(Catalog(corpus_hash="traps", drugs=TRAPS))


@pytest.fixture(scope="module")
def atc() -> CatalogDrugResolver:
    if not ATC_CSV.is_file():
        pytest.skip(f"team kit not found at {ATC_CSV}")
    return CatalogDrugResolver(Catalog.from_records(atc_monographs(ATC_CSV), "atc"))


# --- exact: the common words, DAT and Oxy ------------------------------------------------------

WORDS_THAT_NAME_NO_DRUG = (
    "đặt trực tràng",
    "thở oxy",
    "THỞ OXY",
    "dat truc trang",
    "DAT TRUC TRANG",
    "uống",
    "thuốc",
    "viên",
    "liều",
    "uống thuốc theo chỉ định, mỗi lần một viên, liều thấp",
    "uong thuoc theo chi dinh",
)


@pytest.mark.parametrize("text", WORDS_THAT_NAME_NO_DRUG)
def test_common_words_name_no_drug_in_the_traps(traps: CatalogDrugResolver, text: str) -> None:
    assert traps.resolve(text) == ()
    assert traps.suggest(text) == ()


@pytest.mark.parametrize("text", WORDS_THAT_NAME_NO_DRUG)
def test_common_words_name_no_drug_in_the_atc_catalogue(atc: CatalogDrugResolver, text: str) -> None:
    assert atc.resolve(text) == ()
    assert atc.suggest(text) == ()


def test_the_atc_brand_lists_really_hold_dat_and_oxy(atc: CatalogDrugResolver) -> None:
    # Given the real catalogue: the traps above are not hypothetical
    assert "DAT" in atc.by_id["diphtheria_antitoxin_dat"].aliases
    assert "Oxy" in atc.by_id["oxytocin"].aliases
    # Then the word "Oxy" is withheld, and DAT matches only as the capitalised acronym
    assert alias_kind("Oxy") == "word" and alias_kind("DAT") == "word"
    assert resolved_ids(atc, "Liều DAT cho trẻ bạch hầu") == ("diphtheria_antitoxin_dat",)
    assert "oxytocin" in resolved_ids(atc, "liều oxytocin")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Liều DAT cho trẻ", ("diphtheria_antitoxin_dat",)),
        ("DAT", ("diphtheria_antitoxin_dat",)),
        ("dat", ()),  # lowercase: the word "đặt" typed without marks
        ("Oxy", ()),
        ("nước oxy già", ("hydrogen_peroxide",)),  # the Vietnamese name, two words
        ("Theophylline", ("theophylline",)),
        ("theo", ()),  # a syllable: the brand Theo is never matched
        ("sắt", ("sat_sulfat",)),
        ("sat", ()),  # a syllable with marks matches only as written
        ("sát", ()),
        ("sat sulfat", ("sat_sulfat",)),  # typed without marks: the folded form
        ("sát sulfat", ()),  # typed with other marks: no
        ("than hoat tinh", ("than_hoat",)),
        ("thân hoạt", ()),
        ("Syntocinon và Losec", ("oxytocin", "omeprazol", "omeprazol_iv")),  # a shared name: all
        ("omeprazol tiêm", ("omeprazol_iv",)),  # longest span
        ("acid acetylsalicylic", ("acid_acetylsalicylic",)),  # not "acid"
        ("acid", ("acid_hydrocloric",)),
        ("5-ASA", ("mesalazin",)),
    ],
)
def test_traps(traps: CatalogDrugResolver, text: str, expected: tuple[str, ...]) -> None:
    assert resolved_ids(traps, text) == expected


def test_alias_kinds() -> None:
    assert alias_kind("Oxy") == "word"  # a common word
    assert alias_kind("Theo") == "word" and alias_kind("Thia") == "word"  # syllables without marks
    assert alias_kind("NO") == "word"
    assert alias_kind("Sắt") == "as_written" and alias_kind("KCl") == "as_written"
    assert alias_kind("Oxy già") == "folded" and alias_kind("Panadol") == "folded"
    assert is_vietnamese_syllable("nghiêng") and is_vietnamese_syllable("khuya")
    assert not is_vietnamese_syllable("aspirin") and not is_vietnamese_syllable("triam")
    assert {"uống", "thuốc", "viên", "liều", "đặt", "thở", "oxy"} <= common_words()


# --- exact: word boundaries and longest spans ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Chống chỉ định của amoxicilin là gì?", ("amoxicilin",)),
        ("CHONG CHI DINH AMOXICILLIN", ("amoxicilin",)),
        ("acid acetylsalicylic và warfarin", ("acid_acetylsalicylic", "warfarin")),
        ("aspirinol có tốt không", ()),
        ("esomeprazol 20 mg", ("esomeprazol",)),
        ("omeprazol", ("omeprazol",)),
        ("Nexium Mups", ("esomeprazol",)),
    ],
)
def test_sample_catalogue(sample: CatalogDrugResolver, text: str, expected: tuple[str, ...]) -> None:
    assert resolved_ids(sample, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("aspirinol", ()),
        ("esomeprazole 20 mg", ("esomeprazole",)),
        ("omeprazole", ("omeprazole",)),
        ("aciclovir tiêm", ("aciclovir_tiem",)),  # longest span
        ("aciclovir tiem", ("aciclovir_tiem",)),  # typed without marks
        ("aciclovir tiềm", ("aciclovir",)),  # other marks: "tiềm" is not "tiêm"
        ("Aspirin pH8 liều thấp", ("acid_acetylsalicylic_aspirin",)),  # not the brand "Aspirin" alone
        ("Augmentin", ("amoxicillin_clavulanate", "amoxicillin_clavulanic_acid_phoi_hop")),
    ],
)
def test_atc_catalogue(atc: CatalogDrugResolver, text: str, expected: tuple[str, ...]) -> None:
    assert resolved_ids(atc, text) == expected


def test_match_reports_the_span_as_written(sample: CatalogDrugResolver) -> None:
    (match,) = sample.resolve("Liều Panadol cho trẻ 12 kg")
    assert (match.drug_id, match.matched_text, match.start) == ("paracetamol", "panadol", 1)


def test_an_esomeprazol_query_never_reaches_omeprazol_alone(traps: CatalogDrugResolver) -> None:
    # Given a catalogue with omeprazol and no esomeprazol
    assert traps.resolve("esomeprazol") == ()
    assert traps.suggest("esomeprazol") == ()  # es + omeprazol is another drug's name, not a typo


# --- fuzzy -----------------------------------------------------------------------------------


TYPOS = [
    ("amoxicilline", "amoxicilin"),
    ("paracetamon", "paracetamol"),
    ("Liều paracetamon cho trẻ 12 kg", "paracetamol"),
    ("amoxcilin", "amoxicilin"),
    ("metfromin", "metformin"),  # a transposition is one edit
    ("acid acetylsalicilic", "acid_acetylsalicylic"),  # a multi-word name with a typo
]
ATC_IDS = {"amoxicilin": "amoxicillin"}  # the ATC catalogue spells it the English way


@pytest.mark.parametrize(("text", "drug_id"), TYPOS)
def test_typos_are_suggested_on_the_sample(sample: CatalogDrugResolver, text: str, drug_id: str) -> None:
    assert sample.resolve(text) == ()
    found = sample.suggest(text)
    assert found and found[0].drug_id == drug_id and found[0].score >= 0.55


@pytest.mark.parametrize(("text", "drug_id"), TYPOS[:5])
def test_typos_are_suggested_on_the_atc_catalogue(atc: CatalogDrugResolver, text: str, drug_id: str) -> None:
    assert atc.resolve(text) == ()
    found = atc.suggest(text)
    assert found and found[0].drug_id == ATC_IDS.get(drug_id, drug_id) and found[0].score >= 0.55


@pytest.mark.parametrize("fixture", ["sample", "atc", "traps"])
@pytest.mark.parametrize("text", [*INVENTIONS, "Chống chỉ định của aspirinol?", "xanaxol"])
def test_invented_names_get_no_candidate(request: pytest.FixtureRequest, fixture: str, text: str) -> None:
    resolver: CatalogDrugResolver = request.getfixturevalue(fixture)
    assert resolver.resolve(text) == ()
    assert resolver.suggest(text) == ()


def test_suggest_considers_only_what_resolve_left(sample: CatalogDrugResolver) -> None:
    assert sample.suggest("amoxicilin") == ()
    found = sample.suggest("amoxicilin và paracetamon")
    assert [s.drug_id for s in found] == ["paracetamol"]
    assert found[0] == Suggestion("paracetamol", "paracetamon", "Paracetamol", 0.818)


def test_suggest_ranks_one_per_drug_and_honours_k_and_min_score(atc: CatalogDrugResolver) -> None:
    found = atc.suggest("esomeprazol omeprazon")
    ids = [s.drug_id for s in found]
    assert len(ids) == len(set(ids))
    assert [s.score for s in found] == sorted((s.score for s in found), reverse=True)
    assert len(atc.suggest("esomeprazol omeprazon", k=1)) == 1
    assert atc.suggest("paracetamon", min_score=0.9) == ()


@pytest.mark.parametrize(
    "text",
    ["đau đầu", "bị đau bụng uống gì", "benh nhan suy than", "bacteria", "hospital", "covid", "12 mg/kg"],
)
def test_ordinary_text_gets_no_candidate(sample: CatalogDrugResolver, text: str) -> None:
    assert sample.suggest(text) == ()


def test_a_truncated_or_slipped_name_is_not_an_invention(atc: CatalogDrugResolver) -> None:
    # "aspiri" stops early: a prefix that begins one drug's name alone is that drug's ward
    # shorthand (catalog.shorthands); "abacavin" is one letter from abacavir (the brand Abacav
    # is not its stem)
    assert [m.drug_id for m in atc.resolve("aspiri")] == ["aspirin_dang_vien_dan"]
    assert [s.drug_id for s in atc.suggest("abacavin")][:1] == ["abacavir"]


# --- names for prompts -----------------------------------------------------------------------


def test_catalog_names_put_the_own_name_first(sample: CatalogDrugResolver) -> None:
    names = sample.catalog_names("paracetamol")
    assert names[0] == "Paracetamol" and "acetaminophen" in names and len(names) <= 4
    assert sample.catalog_names("acid_acetylsalicylic", limit=2) == ("Acid acetylsalicylic", "aspirin")


def test_catalog_names_skip_unrecognisable_aliases() -> None:
    # Given reference 08's case: the alphabetically first aliases of paracetamol were pack codes
    aliases = ("0Frezefev", "Ace kid 80", "ABC", "Oxy", "Panadol")
    drug = CatalogDrug(drug_id="paracetamol", title="Acetaminophen", aliases=aliases)
    resolver = CatalogDrugResolver(Catalog(corpus_hash="x", drugs=(drug,)))
    assert resolver.catalog_names("paracetamol") == ("paracetamol", "Acetaminophen", "Panadol")


def test_catalog_names_on_the_atc_catalogue(atc: CatalogDrugResolver) -> None:
    assert atc.catalog_names("paracetamol")[0] == "Paracetamol"
    assert atc.catalog_names("acetaminophen_paracetamol")[0] == "Acetaminophen (paracetamol)"


# --- the safety property ---------------------------------------------------------------------


def _vocabulary(drugs: tuple[CatalogDrug, ...]) -> list[str]:
    tokens = {t for d in drugs for name in d.names() for t in name.split()}
    return sorted(tokens | set(common_words()) | {"aspirinol", "12", "mg", "và", "của"})


_PROPERTY_DRUGS = TRAPS + tuple(
    CatalogDrug(drug_id=d, title=t, aliases=a)
    for d, t, a in [
        ("paracetamol", "Paracetamol", ("Panadol", "acetaminophen")),
        ("esomeprazol", "Esomeprazol", ("Nexium", "Nexium Mups")),
        ("amoxicilin", "Amoxicilin", ("amoxicillin", "Clamoxyl")),
    ]
)
_PROPERTY_RESOLVER = CatalogDrugResolver(Catalog(corpus_hash="property", drugs=_PROPERTY_DRUGS))
_VOCABULARY = _vocabulary(_PROPERTY_DRUGS)


_TONES = ("", "\u0301", "\u0300", "\u0309", "\u0303", "\u0323")  # none, sắc, huyền, hỏi, ngã, nặng


def _variant(token: str, marks: int, case: int) -> str:
    """The token as written (marks 0), without marks (1), or with a tone mark put on its first
    vowel after stripping (2-6: "sắt" -> "sát", "than" -> "thàn")."""
    if marks:
        token = fold(token)
        vowel = next((i for i, c in enumerate(token) if c in "aeiouy"), None)
        if marks > 1 and vowel is not None:
            token = unicodedata.normalize("NFC", token[: vowel + 1] + _TONES[marks - 1] + token[vowel + 1 :])
    return (token, token.upper(), token.capitalize())[case]


_MARKS = st.integers(min_value=0, max_value=len(_TONES))
_CASES = st.integers(min_value=0, max_value=2)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(_VOCABULARY), _MARKS, _CASES), min_size=1, max_size=8),
    st.sampled_from([" ", ", ", " (", "/"]),
)
def test_resolve_only_returns_drugs_named_by_a_whole_word_span(
    parts: list[tuple[str, int, int]], separator: str
) -> None:
    # Given a query of catalogue words, common words and inventions, marks kept, stripped or changed
    query = separator.join(_variant(token, marks, case) for token, marks, case in parts)
    tokens = words(query)
    # When it is resolved
    matches = _PROPERTY_RESOLVER.resolve(query)
    # Then each drug has a name whose words match a contiguous span of the query's words
    for match in matches:
        span = tokens[match.start : match.start + len(match.matched_text.split())]
        names = _PROPERTY_RESOLVER.by_id[match.drug_id].names()
        assert any(
            len(words(name)) == len(span) and all(map(token_matches, span, words(name))) for name in names
        ), (query, match)


_COMMON = sorted(common_words())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_COMMON), _MARKS, _CASES), min_size=1, max_size=6))
def test_no_common_word_names_a_drug_on_its_own(
    atc: CatalogDrugResolver, parts: list[tuple[str, int, int]]
) -> None:
    # Given ordinary Vietnamese, marks kept, stripped or changed, in any letter case
    query = " ".join(_variant(token, marks, case) for token, marks, case in parts)
    # Then a drug comes only from a name of several words ("oxy già" is hydrogen peroxide), or
    # from an acronym typed alone in capitals ("DAT"); no word gets a fuzzy candidate
    typed = re.findall(r"\w+", unicodedata.normalize("NFC", query))
    for match in atc.resolve(query):
        acronym = len(typed[match.start]) <= 3 and typed[match.start].isupper()  # "DAT", "NO" in capitals
        assert len(match.matched_text.split()) > 1 or acronym, query
    assert atc.suggest(query) == (), query


# --- the command line ------------------------------------------------------------------------


class _NoStore:
    def close(self) -> None:
        pass


def test_cli_drugs_prints_hits_and_suggestions_with_scores(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], sample_records: list[Monograph]
) -> None:
    # Given the sample catalogue as the active index's
    from duocthu.tools import cli

    catalog = Catalog.from_records(sample_records, "sample")
    monkeypatch.setattr(cli, "open_store", lambda settings: _NoStore())
    monkeypatch.setattr(cli, "load_active_catalog", lambda store, settings: (None, catalog))
    # When a line names one drug and misspells another
    assert cli.main(["drugs", "Panadol hay amoxicilline?"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # Then the exact hit and the candidate are listed with drug_ids and scores
    assert lines[0].split("\t")[:3] == ["exact", "paracetamol", "1.000"]
    assert lines[1].split("\t")[:3] == ["suggest", "amoxicilin", "0.833"]
    assert cli.main(["drugs", "aspirinol"]) == 0
    assert "no close catalogue name" in capsys.readouterr().out
