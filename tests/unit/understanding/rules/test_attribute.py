"""Which section a turn asks of its drug (`rules.attribute`): everyday wordings, a reaction told
and its management; through the offline pipeline."""

from __future__ import annotations

import pytest
from duocthu.catalog.resolver import CatalogDrugResolver
from duocthu.models.frame import QueryFrame
from duocthu.understanding.pipeline import understand_offline

from tests.unit.understanding.turns import conversation


def test_everyday_words_for_pregnancy_and_breastfeeding(resolver: CatalogDrugResolver) -> None:
    pregnant = understand_offline("có bầu uống prednisolon có sao không ạ", resolver)
    assert (pregnant.attribute, pregnant.population) == ("thoi_ky_mang_thai", "phu_nu_co_thai")
    assert pregnant.patient_context.pregnancy
    nursing = understand_offline(
        "đang hút sữa cho con mà uống azithromycin thì sữa đó cho bé uống được không", resolver
    )
    assert (nursing.attribute, nursing.population) == ("thoi_ky_cho_con_bu", "phu_nu_cho_con_bu")
    assert (
        understand_offline("ciprofloxacin có bài tiết vào sữa?", resolver).attribute == "thoi_ky_cho_con_bu"
    )


def test_an_amount_taken_is_no_dose_asked(resolver: CatalogDrugResolver) -> None:
    # "1 liều" tells what the patient would take: the pregnancy decides, not the dose section
    one_dose = understand_offline(
        "thai 8 tuan bi nam am dao, cho uong fluconazol 150 1 lieu duoc khong?", resolver
    )
    assert one_dose.attribute == "thoi_ky_mang_thai"
    # a dose asked after a number of another clause is still asked
    asked = understand_offline("Cipro uống cho BN ClCr 45: liều?", resolver)
    assert asked.attribute == "lieu_luong_va_cach_dung"


def test_medicines_asked_of_the_patients_state_are_each_asked_for_it(resolver: CatalogDrugResolver) -> None:
    # "A và B" for a pregnant patient, what to do with no reaction told: each drug's pregnancy section
    pregnant = understand_offline(
        "Thai 8 tuần, đang uống Lipitor 20 và Cozaar 50. Hai thuốc này xử lý sao?", resolver
    )
    assert (pregnant.turn_type, pregnant.attribute) == ("drug_attribute", "thoi_ky_mang_thai")
    # a dose change asked for the kidneys: each drug's dose, not their interaction
    renal = understand_offline(
        "BN ClCr 25 đang dùng metformin và enalapril, có cần chỉnh liều không", resolver
    )
    assert (renal.turn_type, renal.attribute) == ("drug_attribute", "lieu_luong_va_cach_dung")
    # words that say together keep the pair
    together = understand_offline("Bầu 20 tuần uống paracetamol và ibuprofen cùng lúc được không", resolver)
    assert together.turn_type == "interaction"


def test_english_headings_and_a_reaction_before_its_cause(resolver: CatalogDrugResolver) -> None:
    for question, attribute in (
        ("Indications của fluconazol?", "chi_dinh"),
        ("Posology của metformin lúc mới bắt đầu điều trị?", "lieu_luong_va_cach_dung"),
        ("Storage conditions của aciclovir dạng tiêm?", "do_on_dinh_va_bao_quan"),
        ("bị ho khan do captopril thì xử lý sao mọi người", "huong_dan_cach_xu_tri_adr"),
        ("Bệnh nhân bị ho khan dai dẳng khi dùng enalapril thì xử trí thế nào?", "huong_dan_cach_xu_tri_adr"),
    ):
        frame = understand_offline(question, resolver)
        assert (frame.attribute, frame.unknown_drugs) == (attribute, ()), question
    # "cấm dùng trong những trường hợp nào" is the contraindications, not the indications
    assert understand_offline("prednisolon cam dung trong nhung truong hop nao a", resolver).attribute == (
        "chong_chi_dinh"
    )


def test_what_to_avoid_with_a_named_drug_is_its_interactions(resolver: CatalogDrugResolver) -> None:
    for message in (
        "Khi dùng metformin nên tránh thuốc gì?",
        "Đang dùng warfarin kiêng thuốc gì?",
        "Tegretol kỵ thuốc gì",
    ):
        frame = understand_offline(message, resolver)
        assert (frame.turn_type, frame.attribute) == ("drug_attribute", "tuong_tac_thuoc"), message


def test_article_style_questions_about_storage_contents_and_missed_doses(
    resolver: CatalogDrugResolver,
) -> None:
    for question, attribute in (
        ("Có nên để thuốc omeprazol ở nơi có nắng chiếu trực tiếp không?", "do_on_dinh_va_bao_quan"),
        ("Thuốc Carbogast bị ẩm mốc thì có còn dùng được không?", "do_on_dinh_va_bao_quan"),
        ("Mỗi viên Bixicam chứa bao nhiêu mg meloxicam?", "dang_thuoc_va_ham_luong"),
    ):
        assert understand_offline(question, resolver).attribute == attribute, question
    for question in (
        "Khi nào nên bỏ qua liều omeprazol đã quên?",
        "Kem Acyclovir Stella Cream do công ty nào sản xuất?",
    ):
        frame = understand_offline(question, resolver)
        assert (frame.turn_type, frame.attribute) == ("out_of_scope", None), question


def test_article_style_questions_about_a_patient_or_the_product(resolver: CatalogDrugResolver) -> None:
    # allergic to the product's own ingredients: the product is asked about, its contraindications
    own = understand_offline("Người dị ứng với thành phần của paracetamol có dùng được không?", resolver)
    assert (own.drugs, own.attribute) == (("paracetamol",), "chong_chi_dinh")
    # "bị bệnh tiểu đường": a disease the patient has, so whether they may take it
    diabetic = understand_offline("Người bị bệnh tiểu đường có dùng được ibuprofen không?", resolver)
    assert diabetic.attribute == "chong_chi_dinh"
    # the maker named inside a dose question does not make it out of scope
    dose = understand_offline(
        "Có được tự ý uống nhiều hơn liều paracetamol mà nhà sản xuất khuyến cáo không?", resolver
    )
    assert (dose.turn_type, dose.attribute) == ("drug_attribute", "lieu_luong_va_cach_dung")
    overdose = understand_offline(
        "Thẩm tách máu có giúp ích trong điều trị quá liều Cetirizine không?", resolver
    )
    assert overdose.attribute == "qua_lieu_va_xu_tri"


def test_more_article_style_questions(resolver: CatalogDrugResolver) -> None:
    # a disease after a filler word is still the patient's
    gout = understand_offline("Đang bị cơn gút cấp thì có được uống Allopurinol không?", resolver)
    assert gout.attribute == "chong_chi_dinh"
    # a maker and a form word between the drug and what it is used for
    cream = understand_offline(
        "Người bị Herpes môi tái phát có thể bôi Acyclovir Stella Cream để điều trị không?", resolver
    )
    assert (cream.drugs, cream.attribute) == (("aciclovir",), "chi_dinh")
    # "ai không được dùng" is not made an indication question by "trong điều trị"
    who = understand_offline("Ai không được dùng atorvastatin trong điều trị rối loạn mỡ máu?", resolver)
    assert who.attribute == "chong_chi_dinh"
    spaced = understand_offline("Nên uống kháng sinh tetracyclin cách Biviantac bao lâu?", resolver)
    assert (spaced.turn_type, spaced.attribute) == ("interaction", "tuong_tac_thuoc")
    stored = understand_offline(
        "Cần cất thuốc Allopurinol ở đâu để trẻ nhỏ và vật nuôi trong nhà không với tới được?", resolver
    )
    assert (stored.turn_type, stored.attribute) == ("drug_attribute", "do_on_dinh_va_bao_quan")


@pytest.mark.parametrize(
    ("message", "attribute"),
    [
        # whether it helps the complaint is what it is for, not whether this patient may take it
        ("Bị viêm phế quản ho có đờm thì uống carbocistein có đỡ không?", "chi_dinh"),
        ("Bị đau đầu uống paracetamol có hiệu quả không?", "chi_dinh"),
        ("Người bị hen uống ibuprofen có được không?", "chong_chi_dinh"),
        # something noticed after the drug, then what to do: its reactions, handled
        ("Dùng Ameflu DAYTIME thấy nổi mụn mủ khắp người thì phải làm gì?", "huong_dan_cach_xu_tri_adr"),
        ("Dùng Atiliver mà thấy cơ thể có dấu hiệu lạ thì nên làm gì?", "huong_dan_cach_xu_tri_adr"),
        # everyday wordings of a section, with the product inside them
        ("Nhà có trẻ nhỏ thì nên để Acyclovir Boston 800 ở đâu cho an toàn?", "do_on_dinh_va_bao_quan"),
        ("Carsantin 6.25mg có phải thuốc bán theo đơn không?", "thong_tin_qui_che"),
        ("Đang uống Co-Diovan có được nhậu không?", "tuong_tac_thuoc"),
        ("Có được mở viên nang Amoxicillin Flamingo ra để uống không?", "lieu_luong_va_cach_dung"),
        ("Ngậm viên Bảo Thanh nhiều ngày liền có gây hại gì cho cơ thể không?", "tac_dung_khong_mong_muon"),
        ("Enalapril có gây hại cho thai nhi không?", "thoi_ky_mang_thai"),
        # a use form under "kiêng" / "tránh", gapped or not, is when the drug must not be used
        ("Ibuprofen kiêng dùng cho những ai?", "chong_chi_dinh"),
        ("Tránh dùng ibuprofen cho ai?", "chong_chi_dinh"),
        ("Ibuprofen kỵ với những thuốc nào?", "tuong_tac_thuoc"),
        ("Uống ibuprofen thì tránh ăn uống gì?", "tuong_tac_thuoc"),
        ("Không nên uống ibuprofen với gì?", "tuong_tac_thuoc"),  # not the generic "không nên uống"
        # paraphrases of ViMedAQA's development questions
        ("Những trường hợp nào thì dùng An Cung Ngưu Hoàng Hoàn?", "chi_dinh"),
        ("Cho hoi thuoc Adrenoxyl can tranh xa nhung doi tuong nao?", "chong_chi_dinh"),  # not storage
        ("Khi quá liều Azicine, cho dùng than hoạt tính để làm gì?", "qua_lieu_va_xu_tri"),
        ("Uống Acetazolamid vô có thể bị gì?", "tac_dung_khong_mong_muon"),
        ("Khi quá liều thuốc Avalo, việc chủ quan có thể dẫn đến hậu quả gì?", "qua_lieu_va_xu_tri"),
        ("Thuốc Caplor thuộc loại kê đơn hay không kê đơn?", "thong_tin_qui_che"),
        ("Warfarin ăn rau cải được không?", "tuong_tac_thuoc"),  # food
        ("Azithromycin uống 3 ngày hay 5 ngày?", "lieu_luong_va_cach_dung"),
        ("Canditral có dùng được cho mẹ đang nuôi con bằng sữa không?", "thoi_ky_cho_con_bu"),
        ("Ibuprofen tối đa một ngày bao nhiêu?", "lieu_luong_va_cach_dung"),
        ("Ibuprofen dùng được cho đau bụng kinh không?", "chi_dinh"),
        ("Ibuprofen dùng được cho người bị hen không?", "chong_chi_dinh"),  # a patient, not a use
        # a short question whose one cue is a lay phrase: in longer questions the phrase sits beside
        # another cue, so only a question like these shows whether its row is still needed
        ("Bé nhà em lỡ nuốt 5 viên Hapacol 250 thì sao?", "qua_lieu_va_xu_tri"),
        ("Uống warfarin mà ăn bưởi có sao không?", "tuong_tac_thuoc"),
        ("Omeprazol cất chỗ nào?", "do_on_dinh_va_bao_quan"),
        ("Uống diazepam xong có vận hành máy được không?", "than_trong"),
        ("Paracetamol tối đa được bao nhiêu một ngày?", "lieu_luong_va_cach_dung"),
    ],
)
def test_everyday_wordings_find_their_section(
    resolver: CatalogDrugResolver, message: str, attribute: str
) -> None:
    assert understand_offline(message, resolver).attribute == attribute


def test_water_taken_with_a_drug_is_how_to_take_it_not_an_interaction(resolver: CatalogDrugResolver) -> None:
    for question in (
        "Khi uống paracetamol có cần uống nguyên viên cùng với một cốc nước đầy không?",
        "Khi uống viên Betahistine, nên uống cùng với khoảng bao nhiêu ml nước?",
    ):
        frame = understand_offline(question, resolver)
        assert frame.attribute == "lieu_luong_va_cach_dung", question
    # "theo đơn của bác sĩ" is how it was prescribed; "bán theo đơn" is its status
    assert understand_offline(
        "Barole có phải là thuốc bán theo đơn của bác sĩ không?", resolver
    ).attribute == ("thong_tin_qui_che")
    assert understand_offline("Azithromycin được thải trừ chủ yếu qua đường nào?", resolver).attribute == (
        "duoc_dong_hoc"
    )


def test_managing_adverse_reactions_is_their_management_section(resolver: CatalogDrugResolver) -> None:
    asked = understand_offline("Gặp tác dụng không mong muốn do clopidogrel thì xử trí thế nào?", resolver)
    assert asked.attribute == "huong_dan_cach_xu_tri_adr"
    adverse = QueryFrame(
        turn_type="drug_attribute", drugs=("amiodaron",), attribute="tac_dung_khong_mong_muon"
    )
    then = understand_offline("Có cách nào xử trí không?", resolver, ("Tác dụng phụ của amiodaron",), adverse)
    assert (then.drugs, then.attribute) == (("amiodaron",), "huong_dan_cach_xu_tri_adr")
    # after an overdose question, the overdose section says how to manage it
    overdose = QueryFrame(turn_type="drug_attribute", drugs=("digoxin",), attribute="qua_lieu_va_xu_tri")
    stays = understand_offline("Xử trí ra sao?", resolver, ("Digoxin quá liều biểu hiện thế nào?",), overdose)
    assert stays.attribute == "qua_lieu_va_xu_tri"
    # without "xử trí", a follow-up keeps the adverse reactions
    more = understand_offline("Thế còn ở người cao tuổi?", resolver, ("Tác dụng phụ của amiodaron",), adverse)
    assert more.attribute == "tac_dung_khong_mong_muon"


def test_a_reaction_told_after_taking_the_drug_asks_how_to_manage_it(resolver: CatalogDrugResolver) -> None:
    for question in (
        "uống carbamazepin bị nổi mẩn đỏ khắp người thì xử lý thế nào",
        "Bố em uống Lasix bị chuột rút nhiều, xử lý thế nào ạ",
        "uong metformin bi tieu chay, buon non thi khac phuc sao",
    ):
        assert understand_offline(question, resolver).attribute == "huong_dan_cach_xu_tri_adr", question
    # a disease told before the drug is what it is taken for, and organ function is never a reaction
    assert understand_offline("Bị tiêu chảy uống loperamid thì phải làm sao?", resolver).attribute is None
    kidney = understand_offline("Bệnh nhân dùng metformin bị suy thận thì phải làm gì?", resolver)
    assert kidney.attribute != "huong_dan_cach_xu_tri_adr"


def test_how_to_handle_it_for_another_drug_goes_on_with_the_reaction(resolver: CatalogDrugResolver) -> None:
    adr = conversation(resolver, "Thuốc nào gây ho khan?", "Captopril thì xử trí sao?")
    assert (adr.drugs, adr.attribute) == (("captopril",), "huong_dan_cach_xu_tri_adr")
    overdose = conversation(resolver, "Quá liều paracetamol có biểu hiện gì?", "Ibuprofen thì xử trí sao?")
    assert (overdose.drugs, overdose.attribute) == (("ibuprofen",), "qua_lieu_va_xu_tri")


def test_which_drugs_taken_with_a_named_drug_ask_its_interactions(resolver: CatalogDrugResolver) -> None:
    # other drugs beside a drug are written in its interaction section, whatever they are said to do
    for question in (
        "Những thuốc nào không nên uống cùng warfarin?",
        "Kháng sinh nào gây tăng kali khi dùng chung với spironolacton?",
        "Bệnh nhân đang dùng digoxin. Thuốc nào dùng kèm làm tăng độc tính?",
    ):
        assert understand_offline(question, resolver).attribute == "tuong_tac_thuoc", question
    # no taking together: a class or a likeness asked, not an interaction
    for question in ("Thuốc nào cùng nhóm với omeprazol?", "Thuốc nào có tác dụng giống với amlodipin?"):
        assert understand_offline(question, resolver).attribute != "tuong_tac_thuoc", question


def test_an_effect_asked_beside_a_medicine_taken_is_on_that_medicine(resolver: CatalogDrugResolver) -> None:
    # nothing named that it affects: the medicine the patient takes is what is affected
    beside = understand_offline(
        "Chị ấy đang uống thuốc tránh thai hằng ngày, giờ cần dùng carbamazepin, có ảnh hưởng không?",
        resolver,
    )
    assert beside.attribute == "tuong_tac_thuoc"
    # an organ named: the drug's own effect on it
    organ = understand_offline(
        "Đang uống thuốc tránh thai, dùng paracetamol lâu có ảnh hưởng gan không?", resolver
    )
    assert organ.attribute != "tuong_tac_thuoc"


def test_which_drugs_acting_on_what_a_named_drug_does_ask_its_interactions(
    resolver: CatalogDrugResolver,
) -> None:
    # a verb on the drug's effect, level or toxicity: what other drugs do to it, in its interactions
    for question in ("Nhóm thuốc nào tăng nồng độ colchicin?", "thuốc nào làm giảm tác dụng của warfarin?"):
        assert understand_offline(question, resolver).attribute == "tuong_tac_thuoc", question
    # a finding the drugs cause, likened to the drug: its reactions, not its interactions
    frame = understand_offline("thuốc nào gây tăng men gan như paracetamol?", resolver)
    assert frame.attribute != "tuong_tac_thuoc"


def test_a_class_asked_with_more_of_its_kind_before_the_which_word_asks_which_drug(
    resolver: CatalogDrugResolver,
) -> None:
    # "kháng sinh / kháng nấm nào": more of the kind between the class and "nào"
    question = "BN đang Coumadin. Kháng sinh / kháng nấm nào làm tăng INR khi dùng kèm?"
    assert understand_offline(question, resolver).attribute == "tuong_tac_thuoc"


def test_the_drug_acted_on_is_read_where_it_is_written_again(resolver: CatalogDrugResolver) -> None:
    # the catalogue reads a name once; written again after the which-words, it is what they act on
    question = "Methotrexat cho VKDT: những thuốc giảm đau chống viêm nào làm tăng độc tính methotrexat?"
    assert understand_offline(question, resolver).attribute == "tuong_tac_thuoc"
