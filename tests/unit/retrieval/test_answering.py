"""The answering lines of an ask about one named drug, ranked over its whole monograph."""

from __future__ import annotations

from dataclasses import replace

from duocthu.catalog.artifact import Catalog
from duocthu.retrieval.answering import answering_lines, line_fit, patient_fit
from duocthu.retrieval.book_lines import BOOK_LINES, PER_DRUG, book_lines
from duocthu.retrieval.focus import focus_terms
from duocthu.retrieval.question_words import asked_pieces, question_tokens
from duocthu.retrieval.service import question_read
from duocthu.settings import Settings
from duocthu.store.edge import EdgeStore
from duocthu.understanding.lexicon import formulary_wording
from duocthu.understanding.reading import added_words

from tests.unit.retrieval.patients import patient


def test_the_line_that_answers_leads_whatever_section_it_is_in(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, _, _ = sample_index
    question = "Lasix ống tiêm pha với glucose 5% để truyền được ko hay phải NaCl?"
    lines = answering_lines(store, [("furosemid", ("furosemid", "Lasix"))], question, ("tuong_tac_thuoc",))
    assert lines[0].section_key == "tuong_ky"
    assert "không nên dùng dung dịch glucose để pha" in lines[0].text


def test_a_line_sharing_only_common_words_is_not_found(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, _, _ = sample_index
    assert answering_lines(store, [("paracetamol", ("paracetamol",))], "viết email gửi trưởng khoa") == ()
    assert answering_lines(store, [("paracetamol", ("paracetamol",))], "paracetamol") == ()


def test_the_book_is_read_for_a_which_drug_question_a_few_lines_a_drug(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, _, _ = sample_index
    lines = book_lines(store, "thuốc nào dùng trong phác đồ diệt H. pylori")
    drugs = [line.drug_id for line in lines]
    assert lines and {"amoxicilin", "metronidazol"} <= set(drugs)
    assert all(drugs.count(d) <= PER_DRUG for d in drugs) and len(lines) <= BOOK_LINES
    assert book_lines(store, "thuốc nào") == ()  # one word read across the book is no question
    # read for a word the question names that no drug list holds: only the lines naming it
    asked = "thuốc nào có nhắc nguy cơ nhiễm Clostridioides difficile khi dùng?"
    named = book_lines(store, asked, ("Clostridioides",))
    assert named and all("Clostridioides" in line.text for line in named)
    assert book_lines(store, "Chống chỉ định của aspirinol?", ("aspirinol",)) == ()
    # every drug whose lines name it answers which drugs interact with it, whatever its score
    lithium = book_lines(store, "thuốc nào làm tăng nồng độ lithi", ("lithi",))
    drugs = [line.drug_id for line in lithium]
    assert {"enalapril", "captopril", "furosemid", "spironolacton"} <= set(drugs)
    assert all(drugs.count(d) <= PER_DRUG for d in drugs)
    # the section the question asks of the drugs is their lines' prior, as for one drug's lines
    asked = "Người thiếu G6PD từng tan máu: nào bị CCĐ?"
    barred = book_lines(store, asked, sections=("chong_chi_dinh",))
    assert ("paracetamol", "chong_chi_dinh") in {(line.drug_id, line.section_key) for line in barred}


def test_the_patients_numbers_pick_the_band_line(sample_index: tuple[EdgeStore, Catalog, Settings]) -> None:
    # a band stated in the asked section leads for a patient inside it, whatever words the
    # question uses; a line stating only bands the patient is outside is weighed down
    store, _, _ = sample_index
    dose = ("lieu_luong_va_cach_dung",)
    child = patient(age_text="4 tuổi")
    lines = answering_lines(store, [("cetirizin", ("cetirizin",))], "cho bao nhiêu ml?", dose, patient=child)
    assert lines and "Trẻ em từ 2 đến 6 tuổi" in lines[0].text
    kidney = patient(renal_function="egfr 38")
    lines = answering_lines(store, [("metformin", ("metformin",))], "tối đa bao nhiêu?", dose, patient=kidney)
    assert lines and lines[0].text.startswith("eGFR 30–44")
    outside, inside = "eGFR 45–59: tối đa 2 000 mg/ngày.", "eGFR 30–44: tối đa 1 000 mg/ngày."
    assert patient_fit(outside, kidney) < 1 < patient_fit(inside, kidney)
    assert patient_fit("Trẻ em từ 2 đến 6 tuổi: 2,5 mg.", None) == 1.0


def test_a_line_for_adults_is_weighed_down_for_a_young_child_only(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    # "người lớn tiêm tĩnh mạch 10 mg" states no age, yet is no child's dose: the children's line
    # leads for a 4-year-old; an adult is never "inside" it, and a line naming both is for both
    store, _, _ = sample_index
    child, adult = patient(age_text="4 tuổi"), patient(age_text="40 tuổi")
    question = "tiêm TM liều bao nhiêu? nhắc lại được không?"
    dose = ("lieu_luong_va_cach_dung",)
    lines = answering_lines(store, [("diazepam", ("diazepam",))], question, dose, patient=child)
    assert lines and lines[0].text.startswith("Trẻ em từ 1 tháng đến 11 tuổi")
    adults = "Trong cai rượu nặng, người lớn tiêm tĩnh mạch 10 mg."
    assert patient_fit(adults, child) < 1 == patient_fit(adults, adult)
    both = "Tốc độ không quá 5 mg/phút ở người lớn; ở trẻ em tiêm chậm trong ít nhất 3 phút."
    assert patient_fit(both, child) == 1


def test_a_line_naming_a_drug_without_a_monograph_asked_beside_is_found(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, _, _ = sample_index
    drugs = [("atorvastatin", ("atorvastatin", "Lipitor"))]
    question = "Lipitor 40 đang dùng, giờ cần clarithromycin 7 ngày. Xử lý sao?"
    beside = [("clarithromycin", ("clarithromycin",))]
    lines = answering_lines(store, drugs, question, ("tuong_tac_thuoc",), together=beside)
    assert lines and all("clarithromycin" in line.text for line in lines)
    # unread as a name by understanding, a word naming a drug the catalogue lacks is still one
    alone = answering_lines(store, drugs, question, ("tuong_tac_thuoc",))
    assert alone and "clarithromycin" in alone[0].text
    # and it outweighs a commoner word of the question ("xử trí" also heads the overdose lines)
    asked = "Ciprofloxacin với theophylin: hậu quả và xử trí?"
    lines = answering_lines(store, [("ciprofloxacin", ("ciprofloxacin",))], asked)
    assert lines and lines[0].text.startswith("Theophylin:")


def test_an_interaction_question_finds_the_other_drug_in_a_long_list_by_its_name_alone(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, _, _ = sample_index
    drugs = [("domperidon", ("Domperidon", "Motilium")), ("amiodaron", ("Amiodaron", "Cordarone"))]
    question = (
        "đơn có Motilium 10mg x3 cho BN đang dùng Cordarone 200mg/ngày vì rung nhĩ. Có vấn đề gì không?"
    )
    lines = answering_lines(store, drugs, question, ("tuong_tac_thuoc",))
    # the combinations domperidon's sections bar list amiodaron among twenty drugs: it leads, not
    # amiodaron's dose line for atrial fibrillation that shares the patient's words
    assert lines and lines[0].drug_id == "domperidon" and "amiodaron" in lines[0].text
    # a dose asked beside another drug is no interaction: its words find the dose
    dose = "Colchicin dự phòng gút uống mấy lần/ngày? Với bn đang dùng fluconazol thì có cần chỉnh ko?"
    found = answering_lines(store, [("colchicin", ("Colchicin",))], dose, ("lieu_luong_va_cach_dung",))
    assert found and "0,5 mg mỗi lần" in found[0].text


def test_a_number_joined_to_letters_is_a_word_of_the_question_the_patients_are_not() -> None:
    # an allele names what the line says; an age, a weight or a clearance is the patient's
    assert "1502" in question_tokens("HLA-B*1502 dương tính thì sao", ())
    assert not {"12", "30", "44"} & set(question_tokens("bé 12 kg, eGFR 30-44", ()))


def test_asked_whether_to_use_it_a_line_that_directs_leads(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    # the contraindication answers "may I", the interaction line explains the risk
    store, _, _ = sample_index
    question = "người đang dùng warfarin có tiêm bắp meloxicam được không"
    drugs = [("meloxicam", ("meloxicam", "Mobic"))]
    asked = answering_lines(store, drugs, question, ("tuong_tac_thuoc",), decision=True)
    assert asked[0].section_key == "chong_chi_dinh" and "tiêm bắp" in asked[0].text
    read = answering_lines(store, drugs, question, ("tuong_tac_thuoc",))
    assert read[0].section_key == "tuong_tac_thuoc"  # without the decision, the routed section's line


def test_the_formulary_words_for_a_clinicians_shorthand_find_the_line(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    # "NaCl" is written "natri clorid" in the book: the lexicon's words find the incompatibility
    store, _, _ = sample_index
    drugs = [("amiodaron", ("amiodaron",))]
    written = "ống tiêm pha với NaCl được không"
    assert answering_lines(store, drugs, written)[0].section_key != "tuong_ky"
    worded = f"{written} {added_words(written, formulary_wording(written))}"
    assert answering_lines(store, drugs, worded)[0].section_key == "tuong_ky"


def test_a_procedure_and_a_regional_spelling_are_read_in_the_formularys_words(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    # "nhổ răng" is a "thủ thuật" and "ngưng" is "ngừng" where the book says what to do before one
    store, _, _ = sample_index
    drugs = [("acenocoumarol", ("acenocoumarol", "Sintrom"))]
    written = "BN đang uống Sintrom, mai nhổ răng, có cần ngưng thuốc không?"
    worded = f"{written} {added_words(written, formulary_wording(written))}"
    assert "thủ thuật xâm lấn, thường ngừng acenocoumarol" in answering_lines(store, drugs, worded)[0].text


def test_a_follow_up_in_shorthand_keeps_the_words_it_goes_on_from() -> None:
    # the formulary's words for the shorthand are read beside the question, and the question a
    # follow-up continues is still found after it in the standalone query
    asked = "BN THA thì sao"
    question, carried = question_read(
        asked, "bệnh nhân tăng huyết áp", f"{asked} (Liều của X: tối đa bao nhiêu)"
    )
    assert question == "BN THA thì sao bệnh nhân tăng huyết áp"
    assert carried == " (Liều của X: tối đa bao nhiêu)"
    assert question_read(asked, "chống chỉ định", "")[0] == asked  # a section's name is the candidates'


def test_a_question_is_read_in_the_other_wordings_the_formulary_writes_a_finding_in(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    # "magie" is written "magnesi" in the monographs; the spacing line is found by that word
    asked = "BN đang uống antacid nhôm-magie thì uống cách bao lâu"
    question, _ = question_read(asked, "", "")
    assert question.endswith("magnesi")
    store, _, _ = sample_index
    lines = answering_lines(store, [("ciprofloxacin", ("ciprofloxacin", "Cipro"))], question)
    assert lines and "4–6 giờ sau" in lines[0].text


def test_for_a_patient_a_line_that_bars_the_drug_for_them_leads(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    # among the lines that answer whether this patient may take it, the contraindication that
    # names them goes first; without a patient the words alone order the lines
    store, _, _ = sample_index
    question, drug = "có dùng được cho người mang thai không?", [("gliclazid", ("gliclazid",))]
    sections = ("thoi_ky_mang_thai",)
    pregnant = patient(pregnancy=True)
    lines = answering_lines(store, drug, question, sections, patient=pregnant, decision=True)
    assert lines[0].section_key == "chong_chi_dinh" and "không dùng gliclazid" in lines[0].text
    plain = answering_lines(store, drug, question, sections, decision=True)
    assert plain and plain[0].section_key == "thoi_ky_mang_thai"


def test_a_message_asking_several_questions_leads_with_the_best_line_of_each(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, _, _ = sample_index
    names = ("carbamazepin", "Tegretol")
    question = (
        "Chị 26t động kinh đang Tegretol muốn có em bé. Nguy cơ dị tật thế nào, cần bổ sung gì trước "
        "khi có thai? Với lại hiện đang uống thuốc tránh thai viên có ổn ko"
    )
    assert len(asked_pieces(question, names)) == 2
    lines = answering_lines(store, [("carbamazepin", names)], question)
    assert "dị tật" in lines[0].text and "tránh thai" in lines[1].text
    # a question with fewer than two words of its own is read with the one beside it
    assert asked_pieces("Dùng được không? người cao tuổi", names) == ["Dùng được không? người cao tuổi"]
    assert asked_pieces("Liều bao nhiêu?", names) == ["Liều bao nhiêu?"]


def test_a_statement_after_a_question_is_no_question_of_its_own() -> None:
    names = ("cetirizin",)
    told = "Cetirizin cho bé 6t, 20kg liều sao ạ? Bé viêm mũi dị ứng theo mùa, nghẹt mũi hắt hơi."
    assert asked_pieces(told, names) == [told]
    asked = "Flagyl 2g liều duy nhất thì nghỉ bú bao lâu? có cần điều trị cho chồng ko"
    assert asked_pieces(asked, names) == [
        "Flagyl 2g liều duy nhất thì nghỉ bú bao lâu?",
        "có cần điều trị cho chồng ko",
    ]


def test_a_clause_on_starting_the_drug_states_no_band_of_a_patient_already_taking_it() -> None:
    told = patient(labs=("K+ 5,6",))
    taking = replace(told, taking=frozenset({"spironolacton"}))
    start = "Tăng kali huyết (kali huyết thanh trên 5,0 mmol/l khi bắt đầu điều trị)."
    assert line_fit("spironolacton", "", start, told) > 1
    assert line_fit("spironolacton", "", start, taking) == 1.0
    # a clause of the same sentence that is not about starting still holds them
    either = "kali huyết thanh trên 5,5 mmol/l: giảm liều một nửa; không bắt đầu khi trên 5,0 mmol/l."
    assert line_fit("spironolacton", "", either, taking) > 1


def test_a_question_asking_what_instead_is_read_with_the_words_its_answer_uses(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    # "đổi qua … được không": what to use instead is written "chuyển sang", "lựa chọn", "ưu tiên"
    assert "chuyen sang" in focus_terms("Đổi qua Cozaar được không?")
    assert focus_terms("Cozaar liều bao nhiêu?") == []
    store, _, _ = sample_index
    question = "Bà 65t THA uống Renitec 10mg, ho khan. Đổi qua thuốc khác được không?"
    lines = answering_lines(store, [("enalapril", ("enalapril", "Renitec"))], question)
    assert lines and "chuyển sang thuốc chẹn thụ thể angiotensin II" in lines[0].text


def test_asked_whether_to_stop_the_line_on_stopping_leads(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    # "ngừng" is in half the book: the sentence on how to stop is found by "ngừng đột ngột", "giảm liều dần"
    assert "dot ngot" in focus_terms("Prednisolon 6 tuần rồi, giờ ngừng luôn được không?")
    assert focus_terms("Clopidogrel trước mổ mấy ngày?") == []
    store, _, _ = sample_index
    question = "BN dùng prednisolon 30mg/ngày 6 tuần rồi, muốn ngừng được không?"
    lines = answering_lines(store, [("prednisolon", ("prednisolon",))], question)
    assert lines and "không được ngừng thuốc đột ngột" in lines[0].text


def test_words_naming_the_book_itself_are_no_words_of_the_question(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    # "thuốc nào trong dược thư …" names the book: its "thư" must not make a line about something
    # else hold two of the question's words
    store, _, _ = sample_index
    assert (
        book_lines(store, "Thuốc nào trong dược thư tương tác với clarithromycin?", ("clarithromycin",)) == ()
    )
    assert book_lines(store, "thuốc nào làm tăng nồng độ lithi trong dược thư", ("lithi",))


def test_an_indication_line_leads_only_when_the_ask_reads_the_indications(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, _, _ = sample_index
    drug = [("diazepam", ("diazepam", "Seduxen"))]
    asked = "Người lớn co giật kéo dài, tiêm tĩnh mạch diazepam liều bao nhiêu?"
    lines = answering_lines(store, drug, asked, ("lieu_luong_va_cach_dung",))
    assert lines and lines[0].section_key == "lieu_luong_va_cach_dung"
    # the same words asked of what the drug is given for: the indication line may lead
    why = answering_lines(store, drug, asked, ("lieu_luong_va_cach_dung",), why_asked=True)
    assert why[0].section_key == "chi_dinh"
