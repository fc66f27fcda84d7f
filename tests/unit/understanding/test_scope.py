"""Subject scope: a keyword rule, the more conservative of the caller's claim and the scan."""

from __future__ import annotations

import pytest
from duocthu.core.tables import table_records
from duocthu.understanding.scope import looks_non_human, resolve_subject_scope, scan_scope


@pytest.mark.parametrize(
    "question",
    [
        "Liều paracetamol cho chó 10 kg?",
        "lieu amoxicilin cho cho 5kg",  # "cho chó" typed without marks
        "Mèo nhà tôi bị nôn, cho uống omeprazol được không?",
        "Thuốc thú y amoxicilin",
        "Gia súc bị tiêu chảy dùng thuốc gì?",
        "Thú cưng bị sốt có dùng paracetamol được không",
        "Heo con bị tiêu chảy",
        "Con chó nhà tôi bị chó khác cắn, bôi thuốc gì?",  # the dog is the patient
        "Heo bị ho thì dùng kháng sinh gì?",
        "Gà bị tiêu chảy trộn metronidazol vào cám được không?",
        "Thỏ bị nấm da bôi thuốc gì?",
        "Ngựa bị đau khớp dùng meloxicam liều bao nhiêu?",
        "Hamster nhà em bị tiêu chảy có thuốc gì không",
        "meo bi tieu chay cho uong gi",
        "Bò nhà tui bị chướng bụng, xài thuốc gì dzậy?",
        "Cá koi bị nấm, thả fluconazol vô hồ được hông?",
        "My cat ate paracetamol",
    ],
)
def test_animal_questions_are_non_human(question: str) -> None:
    assert scan_scope(question) == "non_human"
    assert resolve_subject_scope(question) == "non_human"


@pytest.mark.parametrize(
    "question",
    [
        "Liều paracetamol cho trẻ 12 kg?",
        "lieu paracetamol cho tre em",  # bare "cho" is "for", never "chó"
        "cho con bu dung fluconazol duoc khong",
        "Bị chó cắn có cần tiêm kháng sinh amoxicilin không?",  # a person bitten
        "Tôi bị dị ứng lông mèo, uống cetirizin được không?",
        "Ăn thịt bò khi đang uống warfarin được không?",
        "Mẹo uống thuốc đắng cho trẻ",
        "Khó thở khi dùng salbutamol",  # "thở" is not "thỏ"
        "Bị ngứa uống cetirizin được không?",  # nor "ngứa" "ngựa"
        "Méo miệng sau khi uống thuốc",
        "Ăn thịt gà khi đang uống kháng sinh được không?",
        "Bà đêm nào cũng khó ngủ, trằn trọc tới gà gáy, có thuốc gì không?",  # dawn, not a hen
        "Bị quáng gà uống vitamin A được không?",  # night blindness
        "Nổi da gà, ớn lạnh có phải sốt không?",
        "Trẻ học vẹt thì uống thuốc bổ gì?",
        "Cat Panadol o nhiet do nao?",  # cất / cắt typed without marks, not the English "cat"
        "paracetamol co cat duoc con sot khong",
        "Con cho tre em?",  # "còn cho trẻ em?" typed without marks, not "con chó"
        "boi benzyl benzoate xong van con ngua",  # "còn ngứa", not "con ngựa"
        "uong salbutamol xong van con tho kho khe",  # "còn thở", not "con thỏ"
        # typed with marks, an unmarked word is that word: a child giving, never "con chó"
        "Cụ ông 84t nằm nhà, tối nào con cho uống Seduxen 5mg, giờ hay ngã, có liên quan không?",
        "Bà nằm liệt giường, con cho uống paracetamol qua sonde được không?",
    ],
)
def test_people_questions_stay_human(question: str) -> None:
    assert scan_scope(question) == "human"


def test_a_caller_can_narrow_but_never_widen() -> None:
    # Given a question about a person and one about a dog
    person, dog = "Chống chỉ định của ibuprofen?", "Liều ibuprofen cho chó?"
    # Then a non_human claim narrows the person's question...
    assert resolve_subject_scope(person, "non_human") == "non_human"
    # ...while a human claim (the web client always sends one) cannot widen the dog's
    assert resolve_subject_scope(dog, "human") == "non_human"
    assert resolve_subject_scope(person, "human") == "human"
    assert resolve_subject_scope(person, None) == "human"


def test_looks_non_human_reads_the_whole_conversation() -> None:
    assert looks_non_human(["Con mèo nhà tôi 4 kg", "Liều bao nhiêu?"])
    assert not looks_non_human(["Trẻ 12 kg", "Liều bao nhiêu?"])
    assert looks_non_human(["Liều cho chó?"])


def test_every_scope_row_is_well_formed() -> None:
    rows = table_records("subject_scope.tsv")
    bad = [
        r
        for r in rows
        if r["scope"] not in ("human", "non_human", "person") or r["match"] not in ("folded", "as_written")
    ]
    assert bad == []
