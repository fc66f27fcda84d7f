"""Laboratory values (`core.labs`): a patient's value is a name then its number; a formulary band
a name, a comparison and a number; a number outside the lab's range or in another unit is none."""

from __future__ import annotations

from duocthu.core.labs import lab_bands, lab_relation, lab_states, markers_carried, patient_labs, stated_labs


def test_a_patients_values_are_read_by_name_number_and_unit() -> None:
    text = "ClCr 25, K+ 5,4 mmol/l, kali lần trước 3,3; QTc 510 ms, INR: 4.5, đang losartan kali 50 mg"
    assert patient_labs(text) == {"potassium": 5.4, "qtc": 510.0, "inr": 4.5}
    assert stated_labs(text) == ("K+ 5,4 mmol/l", "QTc 510 ms", "INR: 4.5")
    # "k" is also the shorthand for "không": it is a value only right before a number
    assert patient_labs("Có dùng tiếp được k, 2 viên một ngày?") == {}


def test_a_value_is_the_first_number_a_few_words_after_its_name_unless_a_unit_says_otherwise() -> None:
    assert patient_labs("kali máu hôm nay 5,4. có bắt đầu đc ko?") == {"potassium": 5.4}
    assert stated_labs("K+ sáng nay 5,7, creatinin tăng nhẹ") == ("K+ sáng nay 5,7",)
    assert patient_labs("kali bình thường 2 tuần nay") == {}
    assert patient_labs("kali máu tăng, uống 25 mg") == {}


def test_a_sentence_band_is_read_against_the_patients_value() -> None:
    above = "Tăng kali huyết (kali huyết thanh trên 5,0 mmol/l khi bắt đầu điều trị)"
    up_to = "khởi đầu 25 mg một lần mỗi ngày nếu kali huyết không quá 5,0 mmol/l"
    assert set(lab_bands(above)) == {"potassium"}
    assert lab_relation(above, {"potassium": 5.4}) == "inside"
    assert lab_relation(above, {"potassium": 4.8}) == "outside"
    assert lab_relation(up_to, {"potassium": 4.8}) == "inside"
    assert lab_relation("INR trên 8–9 không chảy máu", {"inr": 4.5}) == "outside"
    assert lab_relation(above, {"inr": 4.5}) is None  # no band of a lab the patient has a value for
    assert lab_bands("Viên nén bao phim chứa losartan kali 25 mg, 50 mg") == {}


def test_a_value_outside_its_reference_range_is_the_state_in_the_formularys_words() -> None:
    assert lab_states("XN sáng nay K+ 2,6, Na+ 134") == ("hạ kali huyết", "hạ natri huyết")
    assert lab_states("K+ 5,4 mmol/l, QTc 510 ms") == ("tăng kali huyết", "khoảng QT kéo dài")
    assert lab_states("kali máu thấp") == ("hạ kali huyết",)
    assert lab_states("kali 4,2; INR 4,5; uống 500 mg 2 lần") == ()  # in range; INR has no state


def test_a_number_marking_a_question_of_a_numbered_list_is_no_value() -> None:
    # "được k 2) …": "k" is the chat "không", and "2)" numbers the second question
    asked = "Ông 80t, eGFR 25, đang gliclazid 60mg. 1) dùng tiếp được k 2) nếu ko thì thay bằng gì?"
    assert patient_labs(asked) == {} and lab_states(asked) == ()
    # a value in parentheses, or a list with no first item, is read as before
    assert patient_labs("(K 4) ok") == {"potassium": 4.0}
    assert patient_labs("K 2,8 mmol/l, 1) bù kali? 2) liều?") == {"potassium": 2.8}


def test_a_genetic_marker_told_positive_is_carried_as_the_book_writes_it() -> None:
    assert markers_carried("xét nghiệm HLA-B*15:02 dương tính") == ("HLA-B*1502",)
    assert markers_carried("hla-b*5801 (+), HLA-B*1502 âm tính") == ("HLA-B*5801",)
    assert markers_carried("chưa xét nghiệm HLA-B*1502") == ()
