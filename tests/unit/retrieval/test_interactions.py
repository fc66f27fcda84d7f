"""Interaction evidence for two or more named drugs: whole-word name matching, pooling in both
directions, the quarantined section surfaced as VERIFY_PDF, and no hit as an abstention."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from duocthu.catalog.artifact import Catalog, CatalogDrug
from duocthu.catalog.drug_names import interacting_drugs
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.text import words
from duocthu.models.chunk import Chunk, point_id
from duocthu.models.frame import PatientContext, QueryFrame
from duocthu.retrieval.interactions import (
    interaction_evidence,
    names_in,
    phrase_in,
)
from duocthu.store.edge import EdgeStore

from tests.factories import make_chunk, publish

KEY = "tuong_tac_thuoc"
SECTIONS: dict[str, list[str]] = {
    "halvorin": [
        "Tác dụng của halvorin tăng khi dùng cùng thuốc ức chế CYP3A4.",
        "Mirtazol: halvorin làm tăng nồng độ mirtazol; theo dõi điện tim.",
        "Esomirtazol không có tương tác đáng kể.",  # a longer word, not mirtazol
    ],
    "mirtazol": [
        "Thức ăn làm chậm hấp thu.",
        "Halvorin làm tăng nồng độ mirtazol (xem chuyên luận Halvorin).",
    ],
    "tenoxil": ["Không có tương tác đáng kể được ghi nhận."],
    # names antacids by their class only: a brand outside the catalogue is in it by the ATC table
    "gastrovin": [
        "Thuốc kháng acid chứa nhôm làm giảm hấp thu gastrovin; uống cách nhau 2 giờ.",
        "Pantozin làm tăng nồng độ gastrovin.",  # a drug outside the catalogue, spelt the book's way
    ],
    # quarantined: the extracted text is unreadable and names no drug
    "qualvir": ["Bảng tương tác (lỗi trích xuất) 3 4 5.", "… (tiếp bảng)"],
}
QUARANTINED = {"qualvir"}
NAMES = {
    "halvorin": ("Halvorin", ("Halvor",)),
    "mirtazol": ("Mirtazol", ("mirtazole", "Mirta Plus")),
    "esomirtazol": ("Esomirtazol", ()),
    "tenoxil": ("Tenoxil", ()),
    "qualvir": ("Qualvir", ()),
    "gastrovin": ("Gastrovin", ()),
}


def chunk(drug_id: str, part: int, text: str) -> Chunk:
    return make_chunk(
        drug_id, KEY, part, text, quarantined=drug_id in QUARANTINED, display_name=NAMES[drug_id][0]
    )


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EdgeStore]:
    edge = EdgeStore(Path(tmp_path_factory.mktemp("interactions")))
    chunks = [chunk(d, i, t) for d, texts in SECTIONS.items() for i, t in enumerate(texts)]
    publish(edge, chunks)
    yield edge
    edge.close()


@pytest.fixture(scope="module")
def resolver() -> CatalogDrugResolver:
    drugs = tuple(CatalogDrug(drug_id=d, title=t, aliases=a) for d, (t, a) in NAMES.items())
    return CatalogDrugResolver(Catalog(corpus_hash="h", drugs=drugs))


def ids(*pairs: tuple[str, int]) -> list[str]:
    return [point_id(drug, KEY, part) for drug, part in pairs]


def test_a_name_matches_as_whole_words_under_the_diacritics_rule() -> None:
    tokens = words("Warfarin và acid acetylsalicylic (aspirin): tăng nguy cơ chảy máu; esomeprazol.")
    assert phrase_in(tokens, "warfarin") and phrase_in(tokens, "acid acetylsalicylic")
    assert not phrase_in(tokens, "omeprazol")  # inside a longer word
    assert not phrase_in(tokens, "acid folic")
    # a name written without marks matches the marked text; one written with marks must match them
    marked = words("Dùng cùng thuốc Bảo Thanh.")
    assert phrase_in(marked, "bao thanh") and phrase_in(marked, "Bảo Thanh")
    assert not phrase_in(marked, "Báo Thanh")
    assert names_in(
        "Halvor và mirtazole.", {"h": ["Halvorin", "Halvor"], "m": ["mirtazole"], "x": ["Xa"]}
    ) == {
        "h",
        "m",
    }


def test_pooled_in_both_directions(store: EdgeStore, resolver: CatalogDrugResolver) -> None:
    # Given two drugs whose interaction sections each name the other once
    # When their interaction evidence is asked for
    bundle = interaction_evidence(store, resolver, ["halvorin", "mirtazol"])
    # Then the part of each that names the other comes back, first drug first; nothing else
    assert bundle.decision == "ANSWERABLE"
    assert [e.id for e in bundle.evidence] == ids(("halvorin", 1), ("mirtazol", 1))
    # the same pool whichever drug is named first
    reverse = interaction_evidence(store, resolver, ["mirtazol", "halvorin"])
    assert set(e.id for e in reverse.evidence) == set(e.id for e in bundle.evidence)


def test_one_direction_is_enough(store: EdgeStore, resolver: CatalogDrugResolver) -> None:
    # tenoxil's section names nobody; nobody names tenoxil: nothing. halvorin names mirtazol only.
    bundle = interaction_evidence(store, resolver, ["halvorin", "tenoxil", "mirtazol"])
    assert [e.id for e in bundle.evidence] == ids(("halvorin", 1), ("mirtazol", 1))


def test_no_part_naming_the_pair_abstains_and_never_says_no_interaction(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    bundle = interaction_evidence(store, resolver, ["halvorin", "tenoxil"])
    assert (bundle.decision, bundle.reason, bundle.evidence) == (
        "ABSTAIN",
        "insufficient_retrieval_score",
        (),
    )
    # a longer name is its own name: esomirtazol's part is not mirtazol's, and the reverse
    esomirtazol = interaction_evidence(store, resolver, ["halvorin", "esomirtazol"])
    assert [e.id for e in esomirtazol.evidence] == ids(("halvorin", 2))
    # one known drug is not a pair
    assert interaction_evidence(store, resolver, ["halvorin", "unknown_drug"]).decision == "ABSTAIN"


def test_a_name_the_catalogue_lacks_is_searched_as_written(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    # "halvorin và thuốc ức chế CYP3A4": the part that names it, not the whole section
    bundle = interaction_evidence(store, resolver, ["halvorin"], ["thuốc ức chế CYP3A4"])
    assert [e.id for e in bundle.evidence] == ids(("halvorin", 0))
    # named nowhere: an abstention, never the section quoted as if it answered
    absent = interaction_evidence(store, resolver, ["halvorin"], ["tramadol"])
    assert (absent.decision, absent.reason) == ("ABSTAIN", "insufficient_retrieval_score")


def test_a_name_outside_the_catalogue_is_found_by_its_class_in_the_atc_table(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    # Maalox is an antacid in the kit's ATC table; the section names "thuốc kháng acid", never Maalox
    bundle = interaction_evidence(store, resolver, ["gastrovin"], ["Maalox"])
    assert [e.id for e in bundle.evidence] == ids(("gastrovin", 0))
    assert [(m.drug_id, m.wording) for m in bundle.named_by_class] == [("Maalox", "Thuốc kháng acid")]
    # a name spelt another way than the book's ("-ine" for "-in") is the same name: named, not by class
    spelt = interaction_evidence(store, resolver, ["gastrovin"], ["Pantozine"])
    assert [e.id for e in spelt.evidence] == ids(("gastrovin", 1)) and not spelt.named_by_class
    # a name of no known class stays unread by class: an abstention, never a guess
    absent = interaction_evidence(store, resolver, ["gastrovin"], ["tramadol"])
    assert absent.decision == "ABSTAIN" and not absent.named_by_class


def test_a_quarantined_section_surfaces_as_verify_pdf(
    store: EdgeStore, resolver: CatalogDrugResolver
) -> None:
    # Given qualvir, whose interaction section is quarantined and names no drug in its extracted text
    # When it is asked about together with halvorin (whose section does not name it either)
    bundle = interaction_evidence(store, resolver, ["halvorin", "qualvir"])
    # Then the quarantined section is in the pool, whole, and the decision is VERIFY_PDF
    assert (bundle.decision, bundle.reason) == ("VERIFY_PDF", "visual_verification_required")
    assert [e.id for e in bundle.evidence] == ids(("qualvir", 0), ("qualvir", 1))
    # and it is never dropped to make the rest answerable
    mixed = interaction_evidence(store, resolver, ["mirtazol", "qualvir", "halvorin"])
    assert mixed.decision == "VERIFY_PDF"
    assert set(ids(("qualvir", 0), ("halvorin", 1), ("mirtazol", 1))) <= {e.id for e in mixed.evidence}


def test_the_drugs_of_an_interaction_turn_include_the_current_medicines(
    resolver: CatalogDrugResolver,
) -> None:
    frame = QueryFrame(
        turn_type="interaction",
        drugs=["mirtazol", "no_such_drug"],
        patient_context=PatientContext(current_medications=["Halvor", "thuốc bổ"]),
    )
    assert interacting_drugs(frame, resolver) == ("mirtazol", "halvorin")


def test_a_part_naming_the_other_drugs_class_joins_and_says_so(tmp_path: Path) -> None:
    parts = {
        ("glimaxin", KEY): [
            "Tăng nguy cơ hạ glucose huyết: các thuốc chống viêm không steroid, thuốc chẹn beta.",
            "Kháng sinh nhóm quinolon có thể gây rối loạn glucose huyết.",  # no beta-lactam named
            "Thức ăn không ảnh hưởng đến hấp thu.",
        ],
        ("voltarin", "loai_thuoc"): ["Thuốc chống viêm không steroid, dẫn chất acid phenylacetic."],
        ("paranol", "loai_thuoc"): ["Thuốc giảm đau; không xếp vào nhóm thuốc chống viêm không steroid."],
        ("amoxirin", "loai_thuoc"): ["Kháng sinh nhóm beta-lactam."],
    }
    chunks = [make_chunk(d, key, i, t) for (d, key), texts in parts.items() for i, t in enumerate(texts)]
    names = ("glimaxin", "voltarin", "paranol", "amoxirin")
    catalog = Catalog(corpus_hash="h", drugs=tuple(CatalogDrug(drug_id=d, title=d.title()) for d in names))
    edge = EdgeStore(tmp_path)
    publish(edge, chunks)
    try:
        resolver = CatalogDrugResolver(catalog)
        # glimaxin's section never names voltarin, only its class, which voltarin's Loại thuốc gives
        bundle = interaction_evidence(edge, resolver, ["glimaxin", "voltarin"])
        assert [e.id for e in bundle.evidence] == [point_id("glimaxin", KEY, 0)]
        assert [(m.evidence_id, m.drug_id, m.wording) for m in bundle.named_by_class] == [
            (point_id("glimaxin", KEY, 0), "voltarin", "chống viêm không steroid")
        ]
        # a class its Loại thuốc denies, or a broad word ("kháng sinh"), ties nothing
        for other in ("paranol", "amoxirin"):
            assert interaction_evidence(edge, resolver, ["glimaxin", other]).decision == "ABSTAIN", other
    finally:
        edge.close()


def test_a_part_naming_one_drug_and_anothers_class_records_the_class_for_the_other(tmp_path: Path) -> None:
    # "… như prednisolon … thuốc chống viêm không steroid": a third drug named only by its class
    parts = {
        ("ciproxin", KEY): [
            "Phối hợp với prednisolin làm tăng nguy cơ đứt gân. "
            "Thuốc chống viêm không steroid: tăng nguy cơ co giật."
        ],
        ("voltarin", "loai_thuoc"): ["Thuốc chống viêm không steroid."],
    }
    chunks = [make_chunk(d, key, i, t) for (d, key), texts in parts.items() for i, t in enumerate(texts)]
    names = ("ciproxin", "prednisolin", "voltarin")
    catalog = Catalog(corpus_hash="h", drugs=tuple(CatalogDrug(drug_id=d, title=d.title()) for d in names))
    edge = EdgeStore(tmp_path)
    publish(edge, chunks)
    try:
        resolver = CatalogDrugResolver(catalog)
        bundle = interaction_evidence(edge, resolver, ["ciproxin", "prednisolin", "voltarin"])
        assert [(m.evidence_id, m.drug_id) for m in bundle.named_by_class] == [
            (point_id("ciproxin", KEY, 0), "voltarin")
        ]
        # with two drugs a part naming the other by name says nothing of classes, as before
        assert interaction_evidence(edge, resolver, ["ciproxin", "prednisolin"]).named_by_class == ()
    finally:
        edge.close()


def test_the_class_a_which_drug_question_asks_among_stands_before_which() -> None:
    from duocthu.retrieval.interactions import classes_asked_among

    assert set(
        classes_asked_among("Thuốc chống đông máu đường uống nào chống chỉ định ở phụ nữ có thai?")
    ) == {"anticoagulant"}
    assert set(classes_asked_among("NSAID nào trong DT CCĐ 3 tháng cuối thai kỳ?")) == {"nsaid"}
    # after "nào" the class is what is asked of, not among
    assert classes_asked_among("thuốc nào tương tác với thuốc chống đông") == {}


def test_a_rule_about_any_medicine_taken_opens_each_pair_the_section_names(
    tmp_path: Path, resolver: CatalogDrugResolver
) -> None:
    # a part about any medicine taken with the drug, naming none, holds for each pair it names
    texts = {
        "halvorin": [
            "Nguyên tắc chung: mọi thay đổi thuốc dùng kèm đều phải kiểm tra nồng độ trong 3–7 ngày.",
            "Mirtazol làm tăng nồng độ halvorin.",
            "Thuốc dùng cùng như tenoxil không ảnh hưởng.",  # names a drug: not a rule for every pair
        ],
        "mirtazol": ["Thức ăn làm chậm hấp thu."],
        "tenoxil": ["Không có tương tác đáng kể được ghi nhận."],
    }
    edge = EdgeStore(tmp_path)
    publish(edge, [chunk(d, i, t) for d, ts in texts.items() for i, t in enumerate(ts)])
    try:
        paired = interaction_evidence(edge, resolver, ["halvorin", "mirtazol"])
        assert [e.id for e in paired.evidence] == ids(("halvorin", 0), ("halvorin", 1))
        # no part naming the pair: the rule alone answers nothing
        alone = interaction_evidence(edge, resolver, ["mirtazol", "esomirtazol"])
        assert alone.decision == "ABSTAIN"
    finally:
        edge.close()
