"""A which-drugs question asked of a stage of pregnancy ("thuốc nào CCĐ ở 3 tháng cuối thai kỳ?"):
the pregnancy is the population asked, read with the formulary's wordings for it, and a drug
counts when a sentence naming it holds at that stage. The book writes stages in many ways ("3
tháng giữa và 3 tháng cuối của thai kỳ", "Ba tháng cuối thai kỳ", "những tuần gần sinh"): the
stage as written would find one of them, and a contraindication list cut short reads as complete.
A sentence naming no stage is about the whole pregnancy, the stage asked included; one whose
stages all lie outside it (the first trimester, asked of the last) does not count."""

from __future__ import annotations

from collections.abc import Sequence

from duocthu.core.phrases import contains_phrase
from duocthu.core.sentences import split_sentences
from duocthu.core.text import fold, words
from duocthu.models.frame import QueryFrame
from duocthu.retrieval.levels import SCALES, Band, is_level, patient_band, relation, sentence_bands

PREGNANCY = "pregnancy"


def asked_stage(frame: QueryFrame) -> Band | None:
    """The stage of pregnancy a which-drugs question's finding names ("ở 3 tháng giữa thai kỳ"):
    a finding no condition table knows, naming the pregnancy ("thai") and a stage of it, or
    nothing but a stage ("Ba tháng đầu: thuốc nào nên tránh?"); None for any other question."""
    condition = frame.condition
    if frame.drugs or condition is None or condition.normalized:
        return None
    if "thai" not in {fold(w) for w in words(condition.text)} and not is_level(condition.text, PREGNANCY):
        return None
    band = patient_band(condition.text, PREGNANCY)
    return None if band == SCALES[PREGNANCY] else band


def at_stage(text: str, phrases: Sequence[str], stage: Band) -> bool:
    """Whether a part holds at the stage asked: a sentence of it holding one of the phrases
    searched names no stage, or stages that reach the one asked."""
    return any(
        any(contains_phrase(sentence, phrase) for phrase in phrases)
        and relation(stage, sentence_bands(sentence, PREGNANCY)) != "outside"
        for sentence in split_sentences(text)
    )
