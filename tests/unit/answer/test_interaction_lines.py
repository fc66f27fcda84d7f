"""The compact reply to an interaction question naming three or more drugs: per pair the sentences
of each section naming the other, with their source; a pair neither section names said as such
and never as "no interaction"; everything beyond the target length named, never dropped."""

from __future__ import annotations

from collections.abc import Sequence

from duocthu.answer.indication_lines import REPLY_TARGET
from duocthu.answer.interaction_lines import InteractionLines
from duocthu.catalog.artifact import Catalog, CatalogDrug
from duocthu.catalog.drug_names import drug_names
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.text import fold
from duocthu.models.evidence import EvidenceBundle, EvidenceItem, NamedByClass, SourceRef

KEY = "tuong_tac_thuoc"
TITLES = {"halvorin": "Halvorin", "mirtazol": "Mirtazol", "tenoxil": "Tenoxil", "qualvir": "Qualvir"}
RESOLVER = CatalogDrugResolver(
    Catalog(corpus_hash="h", drugs=tuple(CatalogDrug(drug_id=d, title=t) for d, t in TITLES.items()))
)
NAMES = {drug: drug_names(RESOLVER, drug) for drug in TITLES}  # as the plan carries them


def item(drug: str, part: int, text: str, page: int = 100, quarantined: bool = False) -> EvidenceItem:
    ref = SourceRef(
        book="Dược thư", edition="3", section_heading="Tương tác thuốc", page_start=page, page_end=page + 1
    )
    return EvidenceItem(
        id=f"{drug}-{part}", drug_id=drug, display_name=TITLES[drug], section_key=KEY, part_index=part,
        chunk_kind="prose", score=1.0, text=text, source_refs=(ref,), has_quarantined_content=quarantined,
    )  # fmt: skip


def lines_for(
    drugs: Sequence[str],
    parts: Sequence[EvidenceItem],
    unknown: Sequence[str] = (),
    by_class: Sequence[NamedByClass] = (),
    without_section: Sequence[str] = (),
    used: int = 0,
) -> tuple[InteractionLines, list[str]]:
    def section(drug: str, key: str) -> tuple[EvidenceItem, ...]:
        return () if drug in without_section else (item(drug, 0, "…"),)

    lines = InteractionLines(TITLES, NAMES, section, drugs, unknown)
    bundle = EvidenceBundle(
        decision="ANSWERABLE", reason="grounded_evidence_available", evidence=tuple(parts),
        named_by_class=tuple(by_class),
    )  # fmt: skip
    return lines, lines.lines(bundle, used)


def test_each_pair_quotes_the_sentences_naming_the_other_with_their_source() -> None:
    # Given three drugs: halvorin and mirtazol name each other, tenoxil names halvorin only
    parts = [
        item("halvorin", 1, "Thức ăn làm chậm hấp thu. Mirtazol: halvorin làm tăng nồng độ mirtazol.", 420),
        item("mirtazol", 0, "Halvorin làm tăng nồng độ mirtazol; theo dõi điện tim. Rượu nên tránh.", 300),
        item("tenoxil", 2, "Tenoxil làm giảm tác dụng của halvorin.", 50),
    ]
    pairs, lines = lines_for(["halvorin", "mirtazol", "tenoxil"], parts)
    text = "\n".join(lines)
    # Then per pair the naming sentences only, each with drug – section – page
    assert "• Halvorin – Mirtazol:" in lines
    assert (
        "  - Halvorin – Tương tác thuốc – tr. 420–421: “Mirtazol: halvorin làm tăng nồng độ mirtazol”"
        in lines
    )
    assert (
        "  - Mirtazol – Tương tác thuốc – tr. 300–301: "
        "“Halvorin làm tăng nồng độ mirtazol; theo dõi điện tim”" in lines
    )
    assert "Thức ăn" not in text and "Rượu" not in text
    # a section naming the other while the other's does not name it back says so
    assert "• Halvorin – Tenoxil (mục của Halvorin không nêu Tenoxil):" in lines
    # and a pair neither names is one line that never reads as "no interaction" or "safe"
    silent = [line for line in lines if "Mirtazol – Tenoxil" in line]
    assert silent == [
        "- Mirtazol – Tenoxil: mục Tương tác thuốc của Mirtazol và của Tenoxil không nêu nhau; "
        "không có nghĩa là không có tương tác."
    ]
    assert "an toan" not in fold(text)
    assert pairs.quick_replies() == [
        "Tương tác thuốc của Halvorin",
        "Tương tác thuốc của Mirtazol",
        "Tương tác thuốc của Tenoxil",
    ]


def test_a_class_a_name_the_catalogue_lacks_and_a_missing_section_are_said() -> None:
    parts = [
        item(
            "halvorin", 0, "Thuốc chống viêm không steroid làm tăng nguy cơ chảy máu. Tramadol: tăng an thần."
        )
    ]
    by_class = [
        NamedByClass(evidence_id="halvorin-0", drug_id="mirtazol", wording="chống viêm không steroid")
    ]
    _, lines = lines_for(
        ["halvorin", "mirtazol", "qualvir"], parts, unknown=["tramadol", "codein"], by_class=by_class,
        without_section=["qualvir"],
    )  # fmt: skip
    text = "\n".join(lines)
    # a sentence naming the class is quoted as naming the class, not the drug
    assert any(
        line.startswith("  - Halvorin – Tương tác thuốc – tr. 100–101 (nêu nhóm “chống viêm")
        for line in lines
    )
    # a name the catalogue lacks is searched as written; where it is not named, that is said
    assert "“Tramadol: tăng an thần”" in text
    assert "• Halvorin – “tramadol”:" in lines  # no section of tramadol to speak of
    assert "- Halvorin – “codein”: mục Tương tác thuốc của Halvorin không nêu “codein”; " in text
    # a drug without the section is said, and never read as safe
    assert (
        "Chuyên luận Qualvir trong Dược thư không có mục “Tương tác thuốc”; "
        "điều này không có nghĩa là an toàn." in lines
    )
    assert "- Halvorin – Qualvir: mục Tương tác thuốc của Halvorin không nêu Qualvir; " in text


def test_a_quarantined_section_is_flagged_on_its_lines() -> None:
    parts = [
        item("qualvir", 0, "Halvorin: tăng nồng độ.", quarantined=True),
        item(
            "halvorin",
            0,
            "Không ghi nhận gì.",
        ),
    ]
    _, lines = lines_for(["halvorin", "qualvir", "tenoxil"], parts)
    assert any(line.startswith("  - Qualvir") and line.endswith("[CẦN ĐỐI CHIẾU BẢN IN]") for line in lines)
    assert any("Qualvir – Tenoxil" in line and line.endswith("[CẦN ĐỐI CHIẾU BẢN IN]") for line in lines)


def test_many_long_sentences_share_the_target_and_what_does_not_fit_is_named() -> None:
    # Given four drugs whose sections name each other in several long sentences each
    long = "Dùng cùng {other} " + "làm thay đổi nồng độ, " * 25 + "cần theo dõi."
    drugs = ["halvorin", "mirtazol", "tenoxil", "qualvir"]
    parts = [
        item(d, n, " ".join(long.format(other=TITLES[o]) for o in drugs if o != d for _ in range(3)))
        for n, d in enumerate(drugs)
    ]
    _, lines = lines_for(drugs, parts, used=1500)
    text = "\n".join(lines)
    # Then the lines stay within the target with what came before them
    assert 1500 + sum(len(line) + 1 for line in lines) <= REPLY_TARGET
    # and every pair is either shown or named as not shown
    for i, a in enumerate(drugs):
        for b in drugs[i + 1 :]:
            assert f"{TITLES[a]} – {TITLES[b]}" in text, (a, b)
    shown = [line for line in lines if line.startswith("• ")]
    assert len(shown) < 6 and lines[-1].startswith("Không hiển thị vì giới hạn độ dài")
    # and a section's further sentences are counted, never dropped silently
    assert all("(+2 câu khác nêu" in line for line in lines if line.startswith("  - "))


def test_a_drug_asked_beside_medicines_taken_gets_only_its_own_pairs() -> None:
    # Given a patient on halvorin and mirtazol who asks whether tenoxil may be added
    lines = InteractionLines(
        TITLES, NAMES, lambda d, k: (item(d, 0, "…"),), ["tenoxil", "halvorin", "mirtazol"]
    )
    parts = [
        item("halvorin", 1, "Mirtazol: tăng nồng độ. Tenoxil làm tăng tác dụng của halvorin.", 420),
        item("tenoxil", 0, "Không có tương tác đáng kể được ghi nhận với thức ăn.", 300),
    ]
    pooled = EvidenceBundle(
        decision="ANSWERABLE", reason="grounded_evidence_available", evidence=tuple(parts)
    )
    text = "\n".join(lines.lines(pooled, about="tenoxil"))
    assert "Tenoxil – Halvorin" in text and "Tenoxil làm tăng tác dụng của halvorin" in text
    assert "Tenoxil – Mirtazol: mục Tương tác thuốc của Tenoxil và của Mirtazol không nêu nhau" in text
    assert "Halvorin – Mirtazol" not in text  # the medicines taken together are not what was asked


def test_the_pairs_as_data_keep_every_sentence_and_say_a_silent_pair() -> None:
    parts = [
        item("halvorin", 1, "Thức ăn làm chậm hấp thu. Mirtazol: halvorin làm tăng nồng độ mirtazol.", 420),
        item("tenoxil", 2, "Tenoxil làm giảm tác dụng của halvorin.", 50),
    ]
    lines, _ = lines_for(["halvorin", "mirtazol", "tenoxil"], parts, without_section=["mirtazol"])
    bundle = EvidenceBundle(
        decision="ANSWERABLE", reason="grounded_evidence_available", evidence=tuple(parts)
    )
    pairs = {p.drugs: p for p in lines.pairs(bundle)}
    assert list(pairs) == [("halvorin", "mirtazol"), ("halvorin", "tenoxil"), ("mirtazol", "tenoxil")]
    named = pairs[("halvorin", "mirtazol")]
    assert [(m.owner, m.sentences, m.pages) for m in named.mentions] == [
        ("halvorin", ("Mirtazol: halvorin làm tăng nồng độ mirtazol.",), "420–421")
    ]
    assert named.without_section == ("mirtazol",)
    assert [m.owner for m in pairs[("halvorin", "tenoxil")].mentions] == ["tenoxil"]
    assert pairs[("mirtazol", "tenoxil")].mentions == ()  # said as not named, never "no interaction"


def test_what_to_take_instead_said_right_after_the_pair_goes_with_it() -> None:
    parts = [
        item(
            "halvorin",
            0,
            "Mirtazol làm giảm tác dụng của halvorin. Nếu cần, có thể chọn tenoxil thay thế. "
            "Rượu nên tránh. Nên dùng halvorin buổi sáng.",
        ),
    ]
    _, lines = lines_for(["halvorin", "mirtazol"], parts)
    said = "\n".join(lines)
    assert "có thể chọn tenoxil thay thế" in said
    # a preference later in the part, after a sentence on something else, is not the pair's
    assert "buổi sáng" not in said
