"""A which-drug question that lists its candidates: the list is read by its form (catalogue names
written as alternatives, in a message asking which one), the rest of the message is the which-drug
question, and its lookup is restricted to the candidates."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.core.deadline import Deadline
from duocthu.models.frame import QueryFrame
from duocthu.understanding.asked_among import candidates_listed, without_candidates
from duocthu.understanding.pipeline import understand_read
from duocthu.understanding.rules.provider import OfflineFrameProvider
from duocthu.understanding.several_asks import plan_message
from duocthu.understanding.tags import MessageReader, tag_message


def _understand(
    text: str, history: Sequence[str], prior: QueryFrame | None, reader: MessageReader
) -> QueryFrame:
    return understand_read(text, reader, OfflineFrameProvider(), Deadline.after(5), history, prior)


@pytest.mark.parametrize(
    ("message", "listed"),
    [
        (
            "Trong azithromycin, cefuroxim, amoxicilin, ciprofloxacin: kháng sinh nào cần tránh ở BN QT "
            "kéo dài bẩm sinh?",
            ("azithromycin", "cefuroxim", "amoxicilin", "ciprofloxacin"),
        ),
        ("gliclazid hay metformin, thuốc nào không dùng khi cho con bú?", ("gliclazid", "metformin")),
        (
            "amlodipin, losartan và enalapril - cái nào hay gây phù cổ chân?",
            ("amlodipin", "losartan", "enalapril"),
        ),
        # no "which": the drugs are asked about together or each
        ("azithromycin, ciprofloxacin có tương tác không?", ()),
        # drugs joined by "với" are asked together, not offered as a choice
        ("thuốc nào tương tác với warfarin và aspirin?", ()),
        # the patient's medicines are facts, never candidates, unless the list is opened as a choice
        ("BN đang dùng warfarin, aspirin. Thuốc nào giảm đau dùng được?", ()),
        (
            "Thêm clarithromycin: trong các thuốc BN đang dùng kèm (amlodipin, atorvastatin, warfarin) "
            "thuốc nào bị tăng nồng độ?",
            ("amlodipin", "atorvastatin", "warfarin"),
        ),
        # or pointed back to as the ones to choose among, after it
        (
            "Cụ đang uống: diazepam, digoxin, amlodipin. Trong mấy thuốc này thuốc nào gây lú lẫn?",
            ("diazepam", "digoxin", "amlodipin"),
        ),
        (
            "BN đang dùng warfarin, aspirin. Thuốc nào trong số đó phải ngừng trước mổ?",
            ("warfarin", "acid_acetylsalicylic"),
        ),
        # what brings a reaction on is asked of the medicines taken, unless a class is asked among
        (
            "BN đang dùng warfarin, aspirin, omeprazol. Thuốc nào gây chảy máu?",
            ("warfarin", "acid_acetylsalicylic", "omeprazol"),
        ),
        ("BN đang dùng warfarin, aspirin. Thuốc giảm đau nào gây loét dạ dày?", ()),
        # one drug is no choice
        ("Trong ibuprofen thì thuốc nào gây loét?", ()),
    ],
)
def test_a_list_of_alternatives_in_a_which_question_is_the_candidates(
    resolver: CatalogDrugResolver, message: str, listed: tuple[str, ...]
) -> None:
    found = candidates_listed(tag_message(message, resolver))
    assert tuple(m.drug_id for m in found) == listed


def test_the_rest_of_the_message_is_what_each_candidate_is_asked(resolver: CatalogDrugResolver) -> None:
    tags = tag_message(
        "Trong 4 thuốc atorvastatin, paracetamol, amoxicilin, omeprazol — thuốc nào CCĐ?", resolver
    )
    rest = without_candidates(tags, candidates_listed(tags))
    assert "atorvastatin" not in rest and "omeprazol" not in rest
    assert rest.endswith("thuốc nào chống chỉ định?") and "—" not in rest  # in the formulary's words


@pytest.mark.parametrize(
    ("message", "among"),
    [
        (
            "Trong 4 thuốc atorvastatin, paracetamol, amoxicilin, omeprazol — thuốc nào CCĐ cho phụ nữ "
            "mang thai",
            ("atorvastatin", "paracetamol", "amoxicilin", "omeprazol"),
        ),
        (
            "Có BN migraine uống ergotamin. Trong azithromycin, ciprofloxacin, amoxicilin thuốc nào không "
            "được dùng chung",
            ("azithromycin", "ciprofloxacin", "amoxicilin"),
        ),
    ],
)
def test_the_lookup_is_restricted_to_the_candidates(
    resolver: CatalogDrugResolver, message: str, among: tuple[str, ...]
) -> None:
    plan = plan_message(message, (), None, _understand, resolver)
    lookup = next(a for a in plan.asks if a.kind == "relation")
    assert lookup.among == among
    assert not plan.together  # not an interaction of the drugs listed


def test_a_list_whose_rest_asks_no_lookup_is_planned_as_written(resolver: CatalogDrugResolver) -> None:
    # the rest ("thuốc nào liều cao hơn?") asks no finding across the book: the drugs stay asked each
    message = "paracetamol hay ibuprofen, thuốc nào liều cao hơn?"
    plan = plan_message(message, (), None, _understand, resolver)
    assert not any(a.among for a in plan.asks)
    assert {"paracetamol", "ibuprofen"} <= set(plan.frame.drugs)


def test_a_finding_no_section_lists_drugs_by_is_asked_of_each_candidate(
    resolver: CatalogDrugResolver,
) -> None:
    # which of them needs a dose change in renal failure: no section lists drugs so across the book,
    # so each candidate's own dose section answers, never a "read each monograph yourself"
    message = "amoxicilin, azithromycin, cefuroxim – thuốc nào phải chỉnh liều khi suy thận?"
    plan = plan_message(message, (), None, _understand, resolver)
    assert not any(a.kind == "relation" for a in plan.asks)
    each = next(a for a in plan.asks if a.kind == "each_drug")
    assert (set(each.drugs), each.section_key) == (
        {"amoxicilin", "azithromycin", "cefuroxim"},
        "lieu_luong_va_cach_dung",
    )


def test_a_finding_no_table_knows_is_looked_up_among_the_candidates_when_a_relation_is_read(
    resolver: CatalogDrugResolver,
) -> None:
    # "tránh … nào" reads a relation of "nhược cơ": searched as written among the drugs listed,
    # never the four drugs' interactions with each other
    message = "BN nhược cơ thì tránh những thuốc nào trong danh sách: ciprofloxacin, diazepam, amoxicilin?"
    plan = plan_message(message, (), None, _understand, resolver)
    lookup = next(a for a in plan.asks if a.kind == "relation")
    assert lookup.among == ("ciprofloxacin", "diazepam", "amoxicilin") and not plan.together
    # what the patient reacted to is a fact about them, never a finding to look up
    message = (
        "người từng sốc phản vệ với penicilin, trong amoxicilin, cefuroxim thì thuốc nào chống chỉ định?"
    )
    assert not any(a.among for a in plan_message(message, (), None, _understand, resolver).asks)


def test_a_choice_beside_the_medicine_told_earlier_reads_each_candidate_with_it(
    resolver: CatalogDrugResolver,
) -> None:
    # the medicine told in the turn before, the rest naming no finding a table knows ("INR tăng"):
    # each candidate with that medicine, in the interaction sections, never a list of reactions
    history = ("BN đang warfarin.",)
    prior = _understand(history[0], (), None, MessageReader(resolver))
    message = "Trong cipro, metronidazol, carbamazepin, Losec: thuốc nào làm INR tăng, thuốc nào làm giảm?"
    plan = plan_message(message, history, prior, _understand, resolver)
    assert plan.reply == "beside_medicines" and plan.frame.drugs == ("warfarin",)
    assert plan.together == ("warfarin", "ciprofloxacin", "metronidazol", "carbamazepin", "omeprazol")
    # a finding a table knows is still looked up among the candidates
    message = "Trong cipro, metronidazol, carbamazepin: thuốc nào gây chảy máu?"
    plan = plan_message(message, history, prior, _understand, resolver)
    assert any(a.kind == "relation" and a.among for a in plan.asks)


def test_a_choice_asked_beside_the_one_drug_the_question_names_reads_each_candidate_with_it(
    resolver: CatalogDrugResolver,
) -> None:
    # "… khi dùng cùng warfarin": warfarin is what the candidates are asked beside, as a medicine
    # taken is; never every pair among the six drugs
    message = "Trong amiodaron, fluconazol, digoxin: thuốc nào làm tăng INR khi dùng cùng warfarin?"
    plan = plan_message(message, (), None, _understand, resolver)
    assert plan.reply == "beside_medicines" and plan.frame.drugs == ("warfarin",)
    assert plan.together == ("warfarin", "amiodaron", "fluconazol", "digoxin")
