"""The pure reading of a formulary text (no store): where a phrase stands as words of its own,
what a negation or a lead before it makes of it, and what a mention counts as in its section."""

from __future__ import annotations

import pytest
from duocthu.core.text import words
from duocthu.retrieval.reverse.reading import (
    advice_position,
    affirmed_positions,
    first_mention,
    phrase_position,
    states_effect,
)


@pytest.mark.parametrize(
    ("text", "phrase", "position"),
    [
        # what the drug is not for
        ("Cetirizin không phải là thuốc điều trị hen phế quản.", "hen phế quản", -1),
        ("Tiêu chảy nhẹ ở người lớn, không kèm sốt hay phân máu.", "sốt", -1),
        ("Viêm niệu đạo không do lậu cầu.", "lậu cầu", -1),
        ("Không được khuyến cáo để giảm đau cấp thông thường, hạ sốt.", "hạ sốt", -1),
        ("Không có hiệu quả điều trị quá trình viêm trong viêm khớp dạng thấp.", "viêm khớp dạng thấp", -1),
        # fluoxetin's own wording: it had been listed for insomnia
        ("Fluoxetin không có chỉ định điều trị mất ngủ hay lo âu thoáng qua.", "mất ngủ", -1),
        # a negation reaches to the end of its sentence only
        ("Không dùng để cắt cơn. Hen phế quản mạn.", "hen phế quản", 5),
        # ... and never back: the condition before it is affirmed
        ("Dự phòng huyết khối khi không dùng được thuốc chống đông khác.", "huyết khối", 2),
        # the patient cannot take another drug: the indication after it still stands
        ("Rung nhĩ ở người không dùng được thuốc kháng vitamin K để phòng huyết khối.", "huyết khối", 13),
        # the drug's own name inside the negation ("không dùng * để")
        ("Không dùng allopurinol để điều trị cơn gút cấp.", "cơn gút cấp", -1),
        ("Không nên dùng thuốc này để điều trị cơn gút cấp.", "cơn gút cấp", -1),
        # ... but never "được": the patient cannot take another, so the use after it stands
        ("Khi không dùng được beta-lactam để điều trị viêm phổi.", "viêm phổi", 9),
        # either way negates nothing; a drug class is not a negation
        ("Rối loạn hoảng sợ có hoặc không kèm sợ khoảng trống.", "sợ khoảng trống", 8),
        ("Phối hợp thuốc chống viêm không steroid trong viêm khớp.", "viêm khớp", 8),
    ],
)
def test_a_mention_after_a_negation_is_not_an_indication(text: str, phrase: str, position: int) -> None:
    assert next(iter(affirmed_positions(text, words(phrase))), -1) == position


def test_a_word_inside_a_dashed_compound_name_is_not_a_mention() -> None:
    text = "Nhịp nhanh trong hội chứng Wolff–Parkinson–White. Bệnh Parkinson giai đoạn sớm."
    assert phrase_position("Rung nhĩ ở hội chứng Wolff–Parkinson–White.", words("Parkinson")) == -1
    assert phrase_position(text, words("Parkinson")) == 9  # the second, a disease of its own
    assert phrase_position("Hội chứng Stevens-Johnson, hoại tử.", words("hội chứng Stevens-Johnson")) == 0
    assert phrase_position("Hội chứng Stevens-Johnson.", words("Johnson")) == -1


ADR = "tac_dung_khong_mong_muon"


@pytest.mark.parametrize(
    ("text", "wording", "section_key", "reading"),
    [
        # chỉ định: the use itself, after a cause or patient lead, inside another disease, as a risk
        ("Giảm đau nhẹ đến vừa và hạ sốt ở người lớn.", "sốt", "chi_dinh", (7, "direct")),
        ("Giảm khó chịu do sốt ở trẻ em.", "sốt", "chi_dinh", (4, "secondary")),
        ("Cắt cơn co giật do sốt ở trẻ em.", "sốt", "chi_dinh", (5, "incidental")),  # another condition
        ("Sốt thương hàn do Salmonella typhi.", "sốt", "chi_dinh", (0, "incidental")),
        ("Rung nhĩ, có nguy cơ chảy máu thấp.", "chảy máu", "chi_dinh", (5, "incidental")),
        ("Giảm nguy cơ đột quỵ ở người tăng huyết áp.", "đột quỵ", "chi_dinh", (3, "direct")),
        ("Cetirizin không phải là thuốc điều trị hen phế quản.", "hen phế quản", "chi_dinh", (-1, "direct")),
        # ADR: a finding named as the patient's state, or denied in its clause, is no reaction
        ("Các ADR dễ xuất hiện hơn khi có hạ kali huyết.", "hạ kali huyết", ADR, (-1, "direct")),
        ("Thường gặp: hạ kali huyết.", "hạ kali huyết", ADR, (2, "direct")),
        ("Thuốc không gây chảy máu tiêu hóa.", "chảy máu tiêu hóa", ADR, (-1, "direct")),
        # another section: never inside another disease's name, whatever the lead
        ("Không phối hợp với thuốc chống sốt rét.", "sốt", "chong_chi_dinh", (-1, "direct")),
        ("Khi có hạ kali huyết chưa điều chỉnh.", "hạ kali huyết", "chong_chi_dinh", (2, "direct")),
    ],
)
def test_a_mention_is_read_as_its_section_reads_it(
    text: str, wording: str, section_key: str, reading: tuple[int, str]
) -> None:
    assert first_mention(text, wording, section_key, lenient=False) == reading


def test_an_advice_wording_counts_only_where_it_is_not_negated() -> None:
    # wordings of data/population_advice.tsv, matched as written, stop words and all
    assert advice_position("Nên ngừng cho con bú trong khi điều trị.", words("nên ngừng cho con bú")) == 0
    assert advice_position("Không cần ngừng cho con bú.", words("cần ngừng cho con bú")) == -1
    assert advice_position("Thận trọng: không nên dùng khi mang thai.", words("không nên dùng")) == 2


@pytest.mark.parametrize(
    ("text", "finding", "states"),
    [
        # the drug's effect, stated in Thận trọng or Dược lý (the sample monographs' own wording)
        ("Azithromycin có thể kéo dài khoảng QT và gây xoắn đỉnh.", "kéo dài khoảng QT", True),
        (
            "Hậu quả là nhịp xoang chậm lại, dẫn truyền nhĩ thất chậm hơn và khoảng QT kéo dài.",
            "khoảng QT kéo dài",
            True,
        ),
        (
            "Điều trị kéo dài có thể gây hạ magnesi máu, đôi khi nặng kèm hạ calci và hạ kali máu.",
            "hạ kali máu",
            True,
        ),
        ("Hạ natri máu có thể xảy ra, nhất là ở người cao tuổi.", "hạ natri máu", True),
        ("Tránh ánh nắng do phản ứng nhạy cảm ánh sáng.", "nhạy cảm ánh sáng", True),
        # a negation, a comparison
        ("Cetirizin ở liều điều trị không làm kéo dài khoảng QT.", "kéo dài khoảng QT", False),
        ("Losartan không ức chế kininase II, vì vậy tỷ lệ ho khan thấp hơn nhiều.", "ho khan", False),
        ("Vì khởi phát chậm, amlodipin ít gây nhịp tim nhanh phản xạ.", "nhịp tim nhanh", False),
        # the patient's condition
        ("Thận trọng ở người có khoảng QT kéo dài, bệnh tim mạch.", "khoảng QT kéo dài", False),
        ("Hạ kali huyết, hạ magnesi huyết làm cơ tim nhạy cảm hơn với thuốc.", "hạ kali huyết", False),
        (
            "Hạ huyết áp có thể xảy ra, nhất là ở người suy tim, người có hạ natri huyết.",
            "hạ natri huyết",
            False,
        ),
        (
            "Tạm ngừng thuốc khi có tình trạng có thể dẫn tới tiêu cơ vân như co giật không kiểm soát.",
            "co giật",
            False,
        ),
        # what the drug treats or prevents
        ("Thuốc gây giãn tĩnh mạch, làm giảm tiền gánh, có ích trong phù phổi cấp.", "phù phổi", False),
        ("Liều thấp hằng ngày để dự phòng nhồi máu cơ tim.", "nhồi máu cơ tim", False),
    ],
)
def test_a_section_beside_the_adr_list_counts_a_finding_only_as_the_drugs_effect(
    text: str, finding: str, states: bool
) -> None:
    assert (states_effect(text, finding) >= 0) is states


@pytest.mark.parametrize("section_key", ["chong_chi_dinh", "chi_dinh", "tac_dung_khong_mong_muon"])
def test_a_mention_its_sentence_denies_after_it_does_not_count(section_key: str) -> None:
    denied = (
        "Các tình trạng như suy gan, động kinh hay nguy cơ bí tiểu không phải là chống chỉ định tuyệt đối."
    )
    assert first_mention(denied, "động kinh", section_key, False)[0] == -1
    # named again in a sentence that does not deny it, that mention counts
    assert (
        first_mention(f"{denied} Người bệnh động kinh chưa kiểm soát.", "động kinh", section_key, False)[0]
        > 0
    )
