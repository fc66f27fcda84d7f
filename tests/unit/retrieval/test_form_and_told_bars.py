"""Which lines answer for this patient: one opening with a dosage form the question does not name
is about another form (`retrieval/scopes.py`), and for a question whether to use the drug, a
contraindication naming what the turn tells of the patient leads (`answering.band_lines`); a
which-drug list no section names reads the book's lines for its topic (`retrieval.book_lines`)."""

from __future__ import annotations

from pathlib import Path

from duocthu.catalog.artifact import Catalog
from duocthu.core.text import words
from duocthu.models.evidence import RankedLine
from duocthu.models.frame import PatientContext
from duocthu.retrieval.answering import answering_lines, bars_for
from duocthu.retrieval.facets import PatientProfile
from duocthu.retrieval.scopes import AskedFor, opening_form
from duocthu.settings import Settings
from duocthu.store.edge import EdgeStore
from duocthu.tools.evals.answers import run_turns


def _asked(question: str) -> AskedFor:
    return AskedFor(said=tuple(words(question)))


def test_a_line_opening_with_a_form_is_about_that_form() -> None:
    assert opening_form("Dạng nhỏ mắt chống chỉ định trong viêm giác mạc do herpes") == {"drops"}
    assert opening_form("Với dạng tiêm cho trẻ sơ sinh đẻ non: nhiễm khuẩn") == {"injected"}
    # a class or a word that only folds onto a form's word is no form
    assert not opening_form("Thuốc ức chế bơm proton làm giảm hấp thu")
    assert not opening_form("Người bệnh mất ngủ kéo dài")
    eye = "Dạng nhỏ mắt chống chỉ định trong viêm giác mạc"
    assert _asked("prednisolon dùng được không").another_form(eye)
    assert not _asked("prednisolon nhỏ mắt dùng được không").another_form(eye)
    # by mouth is what a question naming no route means; a question naming another route is not
    oral = "Đường uống: trẻ em 2–6 tuổi 1–2 mg"
    assert not _asked("bé 4 tuổi liều bao nhiêu").another_form(oral)
    assert _asked("bé 4 tuổi xịt mấy nhát").another_form(oral)
    assert not _asked("bé 4 tuổi xịt mấy nhát").another_form("Đường hít (bình xịt định liều): 100 microgam")
    # a lead-in naming a route is a form too; "TM" is read as "tĩnh mạch" by the lexicon
    iv = "Tiêm tĩnh mạch – trạng thái động kinh: Người lớn 10 mg"
    assert opening_form(iv) == {"injected"} and not _asked("liều tĩnh mạch bao nhiêu").another_form(iv)
    assert _asked("bé 12kg cho đặt hậu môn liều").another_form("Truyền tĩnh mạch: trẻ nặng 10 – 33 kg")


def test_a_contraindication_naming_the_told_condition_leads_a_decision(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, _, _ = sample_index
    question = "nam 55t xơ gan Child-Pugh C, vàng da, sốt 38,5. Hạ sốt bằng paracetamol được không?"
    patient = PatientProfile(PatientContext(hepatic_function="xơ gan"), age_text="55 tuổi")
    named = [("paracetamol", ("paracetamol",))]
    lines = answering_lines(store, named, question, ("tuong_tac_thuoc",), patient=patient, decision=True)
    assert lines and lines[0].section_key == "chong_chi_dinh" and "suy gan nặng" in lines[0].text
    # not for a question that decides nothing: the words rank the lines
    asked = answering_lines(store, named, question, ("tuong_tac_thuoc",), patient=patient)
    assert all("suy gan nặng" not in line.text for line in asked)


def test_a_bar_on_a_pair_or_a_dose_is_no_bar_of_the_drug_alone(tmp_path: Path) -> None:
    # enalapril's "phối hợp với aliskiren … suy thận" bars the pair, not enalapril for this patient
    reply = run_turns(["enalapril + spironolacton cho bn suy tim ClCr 40 có an toàn ko"], tmp_path)[0].answer
    first = next(line for line in reply.splitlines() if line.startswith("- "))
    assert "aliskiren" not in first


def test_a_which_drug_list_no_section_names_reads_the_book_without_the_class_words(tmp_path: Path) -> None:
    # the class asked among ("thuốc giảm đau") names the drugs, not what their lines must say
    reply = run_turns(["Người thiếu G6PD từng tan máu: thuốc giảm đau nào bị CCĐ?"], tmp_path)[0].answer
    assert "glucose-6-phosphat dehydrogenase (G6PD) đã có tiền sử tan máu khi dùng paracetamol" in reply
    assert "không mục nào nhắc đến" not in reply


def test_a_bar_naming_a_wider_disease_than_the_one_told_leads(tmp_path: Path) -> None:
    # the book bars "bệnh tim thiếu máu cục bộ"; the case tells "nhồi máu cơ tim" (data/broader_findings.tsv)
    message = "Nam 62t bị nhồi máu cơ tim năm ngoái, nay đau vai gáy. Diclofenac uống có được không?"
    reply = run_turns([message], tmp_path)[0].answer
    first = next(line for line in reply.splitlines() if line.startswith("- "))
    assert "bệnh tim thiếu máu cục bộ" in first


def test_a_contraindication_line_that_denies_being_one_bars_nothing() -> None:
    def line(text: str) -> RankedLine:
        return RankedLine(
            lead="", text=text, drug_id="cetirizin", display_name="Cetirizin", section_key="chong_chi_dinh",
            part_id="p", part_index=0, line_index=0, score=1.0, source_refs=(),
        )  # fmt: skip

    patient = PatientProfile(PatientContext(hepatic_function="suy gan"))
    assert bars_for(line("Suy gan nặng."), patient)
    assert not bars_for(
        line("Các tình trạng như suy gan hay động kinh không phải là chống chỉ định tuyệt đối."), patient
    )


def test_a_told_laboratory_value_finds_its_band_where_the_book_says_what_to_do(
    sample_index: tuple[EdgeStore, Catalog, Settings],
) -> None:
    store, _, _ = sample_index
    patient = PatientProfile(PatientContext(labs=("K+ 5,7",)))
    named = [("spironolacton", ("spironolacton",))]
    lines = answering_lines(
        store, named, "spironolacton dùng tiếp thế nào?", ("than_trong",), patient=patient
    )
    assert any(
        line.section_key == "huong_dan_cach_xu_tri_adr" and "trên 5,5 mmol/l" in line.text for line in lines
    )
    # a value outside the band finds no such line the words did not
    low = PatientProfile(PatientContext(labs=("K+ 4,2",)))
    kept = answering_lines(store, named, "spironolacton dùng tiếp thế nào?", ("than_trong",), patient=low)
    assert not any("trên 5,5 mmol/l" in line.text for line in kept)
