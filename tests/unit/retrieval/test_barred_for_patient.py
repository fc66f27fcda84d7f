"""A named drug a patient's own numbers contraindicate (`RetrievalService._barring`,
`retrieval.barring.barring_lines`): the barring sentence is shown with its section, and the dose
is never quoted as an option; a line about one dosage form, a band the patient is outside of or
a dose bars nothing. On the sample formulary."""

from __future__ import annotations

from pathlib import Path

from duocthu.tools.evals.answers import run_turns

DOSE_WITHHELD = "Vì vậy liều dùng không được trích như một lựa chọn"


def test_a_child_under_the_contraindicated_age_gets_the_bar_and_no_dose(tmp_path: Path) -> None:
    message = "bé trai 10 tháng 9kg tiêu chảy cấp, bà nội cho uống Imodium nửa viên. Có dùng tiếp được không?"
    answer = run_turns([message], tmp_path)[0].answer
    assert "“Trẻ em dưới 2 tuổi, do nguy cơ ức chế hô hấp" in answer and DOSE_WITHHELD in answer
    assert "0,1 mg/kg sau mỗi lần đi ngoài" not in answer  # the children's dose line


def test_the_bar_cites_each_section_that_states_it(tmp_path: Path) -> None:
    message = "BN nam 72t ĐTĐ típ 2 đang Glucophage 850mg x2. eGFR 27. Có tiếp tục metformin được ko?"
    answer = run_turns([message], tmp_path)[0].answer
    # the dose section's own bar is quoted (its section is left out); the contraindications, quoted
    # whole in the reply, are cited
    assert "“eGFR < 30: không dùng” (mục “Liều lượng và cách dùng”" in answer
    assert "mục “Chống chỉ định”, tr. 296–297 (trích trong câu trả lời)" in answer and DOSE_WITHHELD in answer


def test_a_line_about_another_form_or_band_bars_nothing(tmp_path: Path) -> None:
    syrup = (
        "Bé 4t 15kg mày đay cấp, cetirizin siro 1mg/ml cho bao nhiêu ml, ngày mấy lần?"  # tablets barred < 6
    )
    moderate = "bn nam 70t gút cấp, ClCr khoảng 40. colchicin cho thế nào?"  # barred under 30
    one_dose = "Thai 10 tuần, nấm âm đạo. Cho Diflucan 150mg 1 liều có sao không?"  # barred: high, long doses
    for turn in run_turns([syrup, moderate, one_dose], tmp_path):
        assert DOSE_WITHHELD not in turn.answer


def test_a_dose_asked_for_a_barred_patient_is_answered_by_the_bar(tmp_path: Path) -> None:
    answer = run_turns(["Liều loperamid cho bé 10 tháng 9kg bao nhiêu?"], tmp_path)[0].answer
    assert DOSE_WITHHELD in answer and "【Loperamid】 Chống chỉ định" in answer
    # no dose line, no word that the dose section follows, no print check for a table not shown
    assert "0,1 mg/kg sau mỗi lần đi ngoài" not in answer and "nguyên văn mục Liều lượng" not in answer
    assert "CẦN ĐỐI CHIẾU BẢN IN" not in answer


def test_a_severe_reaction_to_a_drug_of_the_class_a_contraindication_names_bars(tmp_path: Path) -> None:
    # cefuroxime's contraindications name "quá mẫn tức thì và nặng (như sốc phản vệ …) với penicilin":
    # an anaphylaxis to amoxicillin (a penicillin, by its Loại thuốc) is that reaction
    anaphylaxis = "Bé 3 tuổi 14kg, năm ngoái tiêm amoxicillin bị sốc phản vệ. Cho Zinnat liều bao nhiêu?"
    # a mild rash is not the reaction the clause names: quoted, never a bar
    rash = "BN dị ứng penicilin (nổi mẩn nhẹ), dùng cefuroxim được không?"
    barred, quoted = (t.answer for t in run_turns([anaphylaxis, rash], tmp_path))
    assert "Dược thư ghi không dùng Cefuroxim cho trường hợp của người bệnh này" in barred
    assert DOSE_WITHHELD in barred and "10 mg/kg, 2 lần/ngày" not in barred
    assert DOSE_WITHHELD not in quoted and "dị ứng nhẹ, không tức thì với penicilin" in quoted


def test_a_laboratory_value_inside_a_contraindications_band_bars(tmp_path: Path) -> None:
    # "kali huyết thanh trên 5,0 mmol/l" at K+ 5,4: the bar, and its sentence first
    high, normal = (
        f"BN suy tim, {value}. Khởi đầu spironolacton liều bao nhiêu?"
        for value in ("K+ 5,4 mmol/l", "kali 4,2")
    )
    barred, dosed = (t.answer for t in run_turns([high, normal], tmp_path))
    assert DOSE_WITHHELD in barred and "kali huyết thanh trên 5,0 mmol/l" in barred.split("\n")[1]
    assert (
        "không có mục" not in barred and "được trích dưới đây" not in barred
    )  # the dose is withheld, not absent
    assert DOSE_WITHHELD not in dosed and "khởi đầu 25 mg một lần mỗi ngày nếu kali huyết" in dosed


def test_the_last_value_told_of_a_lab_is_the_patients(tmp_path: Path) -> None:
    # a follow-up's new potassium replaces the first turn's: 5,6 is inside the bar's band
    first = "BN suy tim, kali máu 4,2. Khởi đầu spironolacton liều bao nhiêu?"
    answer = run_turns(["kali máu hôm nay 5,6 thì sao?"], tmp_path, [[first]])[0].answer
    assert DOSE_WITHHELD in answer and "kali huyết thanh trên 5,0 mmol/l" in answer


def test_a_follow_up_with_no_words_of_its_own_reads_the_lines_on_this_patient(tmp_path: Path) -> None:
    # "còn paracetamol thì sao?" after a 2-month-old's question: the band lines for them, never
    # "no passage relevant enough"
    turns = run_turns(
        ["Bé 2 tháng tuổi 5kg sốt, ibuprofen được không?", "còn paracetamol thì sao"],
        tmp_path,
        [[], ["Bé 2 tháng tuổi 5kg sốt, ibuprofen được không?"]],
    )
    answer = turns[1].answer
    assert "Trẻ dưới 3 tháng tuổi chỉ dùng theo chỉ định của thầy thuốc" in answer
    assert "không có đoạn nào đủ liên quan" not in answer


def test_an_allergy_told_as_a_class_bars_its_members_and_a_denied_one_bars_nothing(tmp_path: Path) -> None:
    by_class = "BN dị ứng penicilin (sốc phản vệ), dùng cefuroxim được không?"
    denied = "Chưa từng dị ứng cephalosporin, dùng cefuroxim liều bao nhiêu"
    barred, dosed = (t.answer for t in run_turns([by_class, denied], tmp_path))
    assert "Dược thư ghi không dùng Cefuroxim cho trường hợp của người bệnh này" in barred
    assert DOSE_WITHHELD not in dosed and "【Cefuroxim】 Liều lượng và cách dùng" in dosed


def test_whether_the_patient_may_take_a_drug_asked_with_no_words_of_its_own_is_its_contraindications(
    tmp_path: Path,
) -> None:
    told = [
        "BN HIV 35t, phác đồ ARV có nelfinavir",
        "Than đau thượng vị, ợ chua 2 tuần. Losec có được không anh?",
    ]
    answer = run_turns(["Ok, còn Nexium thì sao?"], tmp_path, [told])[0].answer
    assert "【Esomeprazol】 Chống chỉ định" in answer and "không có đoạn nào đủ liên quan" not in answer


def test_a_reaction_to_a_drug_outside_the_catalogue_bars_by_its_class_in_the_atc_table(
    tmp_path: Path,
) -> None:
    # Rocephin (ceftriaxone) is a cephalosporin by the ATC table's "Loại thuốc"; the anaphylaxis was
    # told a turn before the drug is asked
    told = ["BN 40t viêm xoang, năm 2019 tiêm Rocephin bị sốc phản vệ phải cấp cứu"]
    answer = run_turns(["Giờ dùng Zinnat được không?"], tmp_path, [told])[0].answer
    assert "Dược thư ghi không dùng Cefuroxim cho trường hợp của người bệnh này" in answer
    assert DOSE_WITHHELD in answer


def test_dialysis_is_a_level_the_contraindications_name(tmp_path: Path) -> None:
    # "Người bệnh đang thẩm phân máu không được dùng colchicin …": a patient on dialysis, however
    # told, is at the end of the kidney scale; a clearance of 40 is not
    dialysis, moderate = (
        t.answer
        for t in run_turns(
            [
                "BN chạy thận nhân tạo, gút cấp, colchicin liều bao nhiêu?",
                "BN ClCr 40, gút cấp, colchicin liều bao nhiêu?",
            ],
            tmp_path,
        )
    )
    assert "Dược thư ghi không dùng Colchicin cho trường hợp của người bệnh này" in dialysis
    assert DOSE_WITHHELD in dialysis and DOSE_WITHHELD not in moderate
