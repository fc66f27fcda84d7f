"""The lines of a which-drug reply that say which drugs each section listed and how the list was
found: the drugs quoted, those beyond the cap (named, or in a patient case the first few and a
count), those whose section names a wider finding or names it only in passing, and the caveats."""

from __future__ import annotations

from collections.abc import Sequence

from duocthu.answer.patient_table import UNLISTED_REPLY, UNLISTED_SHOWN
from duocthu.core.sections import INDICATION_SECTION, SECTION_HEADINGS
from duocthu.models.evidence import EvidenceBundle
from duocthu.models.frame import QueryFrame
from duocthu.retrieval.reverse.wordings import advice_sections

INCIDENTAL_SHOWN = 8  # drugs named apart (a finding inside another disease's name), the rest counted


def which_drugs(
    bundle: EvidenceBundle, patient_frame: QueryFrame | None = None, quoted_below: bool = False
) -> list[str]:
    """The drugs a which-drugs route found, by the section that put each on the list: the
    quoted ones, then every one found beyond the cap, so no list is cut short in silence. In a
    patient case (`patient_frame`) only the first UNLISTED_SHOWN beyond the cap are named, the
    rest counted, with the question (a quick reply) that lists them all."""
    by_section: dict[str, tuple[list[str], list[str]]] = {}
    for shown, drugs in ((0, bundle.ranked_drugs), (1, bundle.unlisted_drugs)):
        for drug in drugs:
            # the reverse lookups always say which section listed a drug; chỉ định is the default
            key = drug.section_key or "chi_dinh"
            by_section.setdefault(key, ([], []))[shown].append(drug.display_name)
    lines = []
    for section_key, (quoted, unquoted) in by_section.items():
        heading = SECTION_HEADINGS[section_key]
        advice = section_key in advice_sections()
        what = "khuyên không dùng hoặc tránh dùng thuốc" if advice else "nêu tình trạng này"
        if quoted and not quoted_below:
            lines.append(
                f"Các thuốc mà mục “{heading}” trong Dược thư {'' if advice else 'có '}{what}: "
                f"{', '.join(quoted)}."
            )
        if unquoted:
            lines.append(
                f"Mục “{heading}” của {len(unquoted)} thuốc khác cũng {what} (không trích dẫn ở đây "
                f"để câu trả lời không quá dài): "
                f"{_first_named(unquoted, patient_frame if section_key == INDICATION_SECTION else None)}."
            )
        if advice:
            lines.append(
                f"Lời khuyên trong mục “{heading}” có khi chỉ áp dụng cho một liều hay một giai đoạn; "
                "hãy đọc nguyên văn mục đó của từng thuốc."
            )
    by_wider: dict[str, list[str]] = {}
    for drug in bundle.wider_drugs:
        by_wider.setdefault(drug.section_key or "chi_dinh", []).append(
            f"{drug.display_name} (“{drug.wider_finding}”)"
        )
    for section_key, named in by_wider.items():
        lines.append(
            f"Mục “{SECTION_HEADINGS[section_key]}” của các thuốc sau không nêu đúng tình trạng bạn "
            f"hỏi mà ghi một tình trạng rộng hơn, bao gồm cả tình trạng đó: {', '.join(named)}."
        )
    if bundle.incidental_drugs:
        # named up to a screen's worth, the rest counted: never a wall of names, never dropped
        first = [d.display_name for d in bundle.incidental_drugs[:INCIDENTAL_SHOWN]]
        more = len(bundle.incidental_drugs) - len(first)
        names = ", ".join(first) + (f" và {more} thuốc khác" if more else "")
        if not (bundle.ranked_drugs or bundle.wider_drugs):
            # quoted only so the user can see why: none of them is a drug for it
            lines.append(
                f"Không thuốc nào có mục “{SECTION_HEADINGS['chi_dinh']}” trong Dược thư nêu tình trạng "
                "này như bệnh được điều trị."
            )
        lines.append(
            f"Mục “{SECTION_HEADINGS['chi_dinh']}” của các thuốc sau chỉ nêu tình trạng này trong tên "
            f"một bệnh khác hoặc như một nguy cơ, không phải như bệnh được điều trị: "
            f"{names}."
        )
    # found by the formulary's wording: a section that words the finding otherwise is missed,
    # so the list must not read as complete
    lines.append(
        "Danh sách tìm theo cách Dược thư viết tình trạng này; thuốc nào ghi bằng từ khác có thể "
        "không có ở đây, nên hãy đọc mục đó của thuốc bạn quan tâm hoặc tra bản PDF."
    )
    lines.append("Đây là trích dẫn từ Dược thư, không phải khuyến cáo chọn thuốc.")
    return lines


def _first_named(names: Sequence[str], patient_frame: QueryFrame | None) -> str:
    """All the names, or in a patient case the first UNLISTED_SHOWN and "và N thuốc khác" with the
    question that lists them all."""
    condition = patient_frame.condition if patient_frame is not None else None
    if condition is None or len(names) <= UNLISTED_SHOWN:  # without a condition no question lists them
        return ", ".join(names)
    first, rest = ", ".join(names[:UNLISTED_SHOWN]), len(names) - UNLISTED_SHOWN
    question = UNLISTED_REPLY.format(condition=condition.text)
    return f"{first} và {rest} thuốc khác (nút “{question}” liệt kê đủ)"
