"""Which drugs a stage of pregnancy excludes: the pregnancy read by the book's wordings for it, a
drug counted when a sentence naming it holds at the stage asked (`retrieval.reverse.stages`)."""

from __future__ import annotations

from duocthu.models.frame import ConditionQuery, QueryFrame
from duocthu.retrieval.reverse.relation import asked_population, relation_phrases
from duocthu.retrieval.reverse.stages import asked_stage, at_stage

PHRASES = ("mang thai", "có thai", "thai kỳ")


def _asked(finding: str, **update: object) -> QueryFrame:
    frame = QueryFrame(
        turn_type="condition_relation", condition_relation="contraindication", attribute="chong_chi_dinh",
        condition=ConditionQuery(text=finding),
    )  # fmt: skip
    return frame.model_copy(update=update)


def test_a_finding_naming_a_stage_of_pregnancy_asks_the_pregnancy_at_that_stage() -> None:
    last = _asked("ở 3 tháng cuối thai kỳ", population="nguoi_lon")  # the patient's age aside
    assert asked_stage(last) == (28.0, 42.0)
    assert asked_population(last) == "phu_nu_co_thai"
    assert set(PHRASES) <= set(relation_phrases(last))  # the book's wordings, not the stage as written
    assert asked_stage(_asked("3 tháng giữa thai")) == (14.0, 28.0)
    # no stage, another finding, or a known condition: not a stage question
    assert asked_stage(_asked("phụ nữ có thai")) is None
    assert asked_stage(_asked("trẻ dưới 3 tháng tuổi")) is None
    known = _asked("3 tháng cuối thai kỳ").model_copy(
        update={"condition": ConditionQuery(text="tăng huyết áp", normalized="tăng huyết áp")}
    )
    assert asked_stage(known) is None


def test_a_finding_that_is_only_a_stage_asks_the_pregnancy_at_that_stage() -> None:
    """A clinician names the trimester without "thai kỳ" ("Ba tháng đầu: thuốc nào nên tránh?")."""
    first = _asked("ba tháng đầu")
    assert asked_stage(first) == (0.0, 14.0)
    assert asked_population(first) == "phu_nu_co_thai"
    assert asked_stage(_asked("quý ba")) == (28.0, 42.0)
    # a stage's words inside another finding are no stage of pregnancy
    assert asked_stage(_asked("3 tháng đầu điều trị")) is None


def test_a_part_counts_at_the_stage_when_a_sentence_naming_the_pregnancy_reaches_it() -> None:
    last, first = (28.0, 42.0), (0.0, 14.0)
    both = "Chống chỉ định trong 3 tháng giữa và 3 tháng cuối của thai kỳ do độc tính trên thai nhi."
    assert at_stage(both, PHRASES, last) and not at_stage(both, PHRASES, first)
    whole = "Phụ nữ mang thai và cho con bú."  # no stage: the whole pregnancy, every stage in it
    assert at_stage(whole, PHRASES, last) and at_stage(whole, PHRASES, first)
    # a stage named in a sentence about something else does not count
    other = "Dùng sau 3 tháng điều trị. Phụ nữ có thai trong 3 tháng đầu."
    assert not at_stage(other, PHRASES, last)
