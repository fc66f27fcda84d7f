"""The replies' wording: what a chat turn says around the quoted evidence (why it abstains, which
drugs a list holds and by which section, the patient checked against), in plain Vietnamese.

An abstention always says why and never implies that a drug is safe; a list found by the
formulary's wording never reads as complete.
"""

from __future__ import annotations

from collections.abc import Sequence

from duocthu.answer.barred import dose_barred
from duocthu.answer.blocks import VERIFY_NOTICE
from duocthu.answer.patient_table import PatientTable
from duocthu.answer.which_drugs import which_drugs
from duocthu.core.phrases import contains_phrase
from duocthu.core.sections import ADR_SECTION, DOSE_SECTION, INDICATION_SECTION, SECTION_HEADINGS
from duocthu.core.text import words
from duocthu.models.evidence import EvidenceBundle
from duocthu.models.frame import ConditionQuery, QueryFrame
from duocthu.models.plan import Plan
from duocthu.models.reading import TurnReading
from duocthu.retrieval.facets import PatientProfile
from duocthu.retrieval.reverse.reading import phrase_position
from duocthu.retrieval.reverse.relation import relation_searches
from duocthu.retrieval.reverse.wordings import wordings_of

POPULATION_NAMES = {
    "tre_em": "trẻ em",
    "nguoi_lon": "người lớn",
    "nguoi_cao_tuoi": "người cao tuổi",
    "phu_nu_co_thai": "phụ nữ có thai",
    "phu_nu_cho_con_bu": "phụ nữ cho con bú",
    "suy_than": "suy thận",
    "suy_gan": "suy gan",
}
# asks whose evidence is not one named drug's monograph: drugs found for a condition, or together
_WHICH_DRUGS = ("condition", "relation")
_ACROSS_DRUGS = (*_WHICH_DRUGS, "together")
SMALLTALK_REPLY = (
    "Xin chào! Tôi tra cứu Dược thư Quốc gia Việt Nam: hãy hỏi về một thuốc, ví dụ "
    "“Chống chỉ định của amoxicilin?” hoặc “Liều paracetamol cho trẻ em?”."
)
ABSTAIN_REPLIES: dict[str, str] = {
    "out_of_scope": "Câu hỏi này nằm ngoài nội dung Dược thư Quốc gia Việt Nam, nên tôi không trả lời.",
    "non_human_subject": (
        "Dược thư Quốc gia Việt Nam chỉ đề cập việc dùng thuốc cho người; tôi không trả lời câu hỏi "
        "về thú y hoặc động vật."
    ),
    "unknown_drug": "Không tìm thấy thuốc được hỏi trong Dược thư, nên tôi không có thông tin để trả lời.",
    "dependency_unavailable": (
        "Hệ thống tạm thời không truy cập được dữ liệu cần thiết. Xin thử lại sau ít phút; "
        "đây không phải là câu trả lời về thuốc."
    ),
    "insufficient_retrieval_score": (
        "Dược thư không có đoạn nào đủ liên quan để trả lời câu hỏi này. Điều đó không có nghĩa là "
        "thuốc an toàn hay không tương tác; hãy tra trực tiếp chuyên luận."
    ),
    "parent_hydration_failed": "Không lấy được nội dung chuyên luận để trả lời. Hãy tra trực tiếp Dược thư.",
    "missing_provenance": (
        "Nội dung tìm được không có thông tin nguồn (trang) nên không thể trích dẫn; "
        "hãy tra trực tiếp Dược thư."
    ),
}


# What a patient's state lacks when it names a kidney or liver impairment, or a pregnancy, without
# its level (`PatientProfile.levels_not_told`).
LEVEL_NOT_TOLD = {"renal": "mức độ suy thận", "hepatic": "mức độ suy gan", "pregnancy": "tuổi thai"}


class ReplyWording:
    """The sentences of a reply, with the catalogue's titles for the drugs it names."""

    def __init__(self, titles: dict[str, str], classes: dict[str, str] | None = None):
        self.titles = titles
        self.classes = classes or {}  # drug_id -> its "Loại thuốc" head (catalog.drug_class)

    def names(self, drug_ids: Sequence[str]) -> str:
        return ", ".join(self.titles.get(d, d) for d in drug_ids)

    @staticmethod
    def quoted(names: Sequence[str]) -> str:
        return ", ".join(f"“{name}”" for name in names)

    @classmethod
    def without_monograph(cls, names: Sequence[str]) -> str:
        """What a reply says of names asked that have no monograph (never "not found": the book
        may still name them in another drug's sections)."""
        return f"{cls.quoted(names)} không có chuyên luận riêng trong Dược thư này"

    def abstain_text(self, plan: Plan, bundle: EvidenceBundle) -> str | None:
        frame, reading, ask = plan.frame, plan.reading, plan.main_ask
        if bundle.reason == "section_absent" and frame.drugs:
            uses = INDICATION_SECTION if plan.asks_kind("uses") else None
            section = (ask.section_key if ask else None) or uses or frame.attribute or "tuong_tac_thuoc"
            return (
                f"Chuyên luận {self.names(frame.drugs[:1])} trong Dược thư không có mục "
                f"“{SECTION_HEADINGS[section]}”, nên tôi không có thông tin để trả lời. "
                "Điều này không có nghĩa là an toàn."
            )
        if bundle.reason == "insufficient_retrieval_score" and plan.asks_kind("together"):
            joined = reading.joined_unknown_names
            if joined:
                missing = self.quoted(joined)
                return (
                    f"{self.without_monograph(joined)}, và mục Tương tác thuốc của "
                    f"{self.names(frame.drugs)} không nhắc đến {missing}. Điều đó KHÔNG có nghĩa là không "
                    "có tương tác; hãy tra cứu thêm trước khi phối hợp."
                )
            return (
                f"Mục Tương tác thuốc của {self.names(frame.drugs)} trong Dược thư không nhắc đến nhau. "
                "Điều đó KHÔNG có nghĩa là không có tương tác; hãy tra cứu thêm trước khi phối hợp."
            )
        if bundle.reason == "insufficient_retrieval_score" and plan.asks_kind(*_WHICH_DRUGS):
            read = self.lookup_read(plan)
            if read:
                return read
        if bundle.reason == "insufficient_retrieval_score" and plan.asks_kind(*_ACROSS_DRUGS):
            return (
                "Không tìm thấy thuốc nào trong Dược thư ghi đúng tình trạng này. Điều đó không có nghĩa "
                "là không có thuốc phù hợp hay thuốc nào cũng an toàn; hãy diễn đạt lại hoặc tra cứu thêm."
            )
        if bundle.reason == "needs_clarification" and frame.condition_relation == "unknown":
            # "thuốc nào cần chỉnh liều ở người suy thận": no section lists drugs that way
            return (
                "Tôi chỉ tra được theo một tình trạng các thuốc mà Dược thư nêu trong mục Chỉ định, "
                "Tác dụng không mong muốn, Chống chỉ định, Thận trọng hoặc Tương tác thuốc; câu hỏi này "
                "cần đọc từng chuyên luận. "
                f"Hãy hỏi về một thuốc cụ thể, ví dụ: “{self.ask_about_one_drug(frame)}”."
            )
        if bundle.reason == "needs_clarification":
            return "Bạn có thể nói rõ tình trạng (bệnh, triệu chứng) hoặc các thuốc cần tra không?"
        return None

    def lookup_read(self, plan: Plan) -> str | None:
        """What a which-drugs lookup that found nothing read (its sections, across every drug of
        the book, then the book's sentences) and the words searched; a name without a monograph
        said so first. Never a bare "no information": the reader sees what was read."""
        ask = plan.main_ask
        if ask is None:
            return None
        if ask.kind == "condition":
            sections, phrases = [INDICATION_SECTION], [ask.query] if ask.query else []
        else:
            searches = relation_searches(
                plan.frame, candidates=ask.candidate_sections, names=ask.unknown_names
            )
            sections = [s.section_key for s in searches]
            phrases = [p for s in searches if not s.advice for p in s.phrases]
        if not sections:
            return None
        headings = ", ".join(dict.fromkeys(f"“{SECTION_HEADINGS[key]}”" for key in sections))
        searched = self.quoted(list(dict.fromkeys(phrases)))
        names = self.quoted(ask.unknown_names)
        lead = f"Dược thư không có chuyên luận {names}. " if names else ""
        what = f"nhắc đến {searched}" if searched else "có lời khuyên tránh dùng cho nhóm người này"
        # the whole book's sentences are read too, unless a patient is described (retrieval.service)
        book = ", và không câu nào của các chuyên luận trả lời được câu hỏi"
        return (
            f"{lead}Tôi đã đọc mục {headings} của cả {len(self.titles)} thuốc trong Dược thư: không mục "
            f"nào {what}{book if plan.frame.patient_context.is_empty() else ''}. Điều đó không có nghĩa là "
            "không có thuốc liên quan hay thuốc nào cũng an toàn; hãy tra cứu thêm."
        )

    def preface(self, plan: Plan, bundle: EvidenceBundle) -> list[str]:
        return [line for part in self.preface_parts(plan, bundle) for line in part]

    def said_and_notes(self, plan: Plan, bundle: EvidenceBundle) -> tuple[list[str], list[str]]:
        """The preface apart: the lines that lead (what the reply does not cover) and those that
        may follow the answering lines (`reading_notes`: how the question was read)."""
        notes = self.reading_notes(plan, bundle)
        return [line for line in self.preface(plan, bundle) if line not in notes], notes

    def names_not_covered(self, plan: Plan, answered: list[str], joined: Sequence[str]) -> list[str]:
        """What the reply says of names it does not answer for: those joined to a catalogue drug,
        a shorthand it read, a real drug with no monograph asked on its own."""
        lines: list[str] = []
        reading = plan.reading
        if joined:
            # "paracetamol và codein", "… và tramadol": never an answer about one drug that
            # reads as covering the other
            missing, known = self.quoted(joined), self.names(answered)
            covered = (
                f"là những đoạn trong chuyên luận của {known} nhắc đến các thuốc bạn hỏi"
                if plan.asks_kind("together")
                else f"chỉ nói về {known}, không nói gì về {missing}"
            )
            # a real drug (the ATC table's) has no monograph, which is no "not found": the book may
            # name it in another drug's sections; a name no list holds is (each said of its own names)
            real = [n for n in joined if n in reading.outside_together]
            unknown = [n for n in joined if n not in real]
            said = "; ".join(
                [
                    *([self.without_monograph(real)] if real else []),
                    *([f"không tìm thấy {self.quoted(unknown)} trong Dược thư"] if unknown else []),
                ]
            )
            lines.append(f"{said[:1].upper()}{said[1:]}; phần trả lời này {covered}.")
        lines += self.read_as(plan)
        # a real drug the formulary has no monograph for, asked on its own (not beside a drug whose
        # interactions may name it): said, never answered by another drug
        alone = answered and plan.reply == "sections" and not plan.asks_kind("together")
        outside = [n for n in reading.outside_formulary if n not in joined] if alone else []
        if outside:
            lines.append(
                f"{self.without_monograph(outside)}; phần trả lời này chỉ nói về {self.names(answered)}."
            )
        return lines

    def read_as(self, plan: Plan) -> list[str]:
        reading = plan.reading
        if not reading.read_as:
            return []
        shorthand = ", ".join(f"“{written}” là {self.names([drug])}" for written, drug in reading.read_as)
        return [f"Tôi hiểu {shorthand}."]

    def reading_notes(self, plan: Plan, bundle: EvidenceBundle) -> list[str]:
        """The preface's lines that say how the question was read, not what the reply leaves out
        (a shorthand, a drug without a monograph quoted where the asked drug's interactions name
        it, the dose not computed for the figures given): they may follow the answering lines,
        which a warning of what is not covered may not."""
        answered = list(dict.fromkeys(item.drug_id for item in bundle.evidence))
        joined = unwritten(plan.reading, bundle)
        # a drug named by its class in the quoted lines: why those lines are about it
        notes = [*self.read_as(plan), *self.named_by_class(bundle)]
        if plan.dose_calculation and any(item.section_key == DOSE_SECTION for item in bundle.evidence):
            notes.append(self.dosing_echo(plan.frame, plan.reading.asks_computation))  # after the lines
        real = set(plan.reading.outside_together).issuperset(joined)
        if joined and answered and plan.asks_kind("together") and real:
            notes += self.names_not_covered(plan, answered, joined)[:1]
        return notes

    def preface_parts(
        self, plan: Plan, bundle: EvidenceBundle, quoted_below: bool = False
    ) -> tuple[list[str], list[str], list[str]]:
        """The lines before the quotes: (what comes before a patient table, the table, what follows).
        `quoted_below`: every drug found is quoted with its line (a patient table quotes each drug
        it checks); then the list's lines (which drugs, how they were found) follow the quotes, and
        the drugs quoted are not named twice."""
        frame, reading = plan.frame, plan.reading
        lines: list[str] = []
        table: list[str] = []
        answered = list(dict.fromkeys(item.drug_id for item in bundle.evidence))
        unanswered = [d for d in frame.drugs if d not in answered]
        if answered and unanswered and not plan.asks_kind(*_ACROSS_DRUGS):
            lines.append(
                f"Câu hỏi nêu nhiều thuốc; dưới đây là thông tin của {self.names(answered)} "
                f"(chưa trả lời cho: {self.names(unanswered)})."
            )
        which_drugs = plan.asks_kind(*_WHICH_DRUGS)
        joined = unwritten(reading, bundle) if answered and not which_drugs else ()
        lines += self.names_not_covered(plan, answered, joined)
        lines += self.named_by_class(bundle)
        lines += dose_barred(self.names(plan.main_ask.drugs[:1]) if plan.main_ask else "", bundle)
        # the echo says the dose section follows: never when it does not (a barred patient)
        if plan.dose_calculation and any(item.section_key == DOSE_SECTION for item in bundle.evidence):
            lines.append(self.dosing_echo(frame, reading.asks_computation))
        which: list[str] = []
        # the drugs quoted below, each with its line (a list, a patient table): the lines on how
        # the list was found follow them, and those drugs are not named twice
        named_below = quoted_below or bool(bundle.candidate_statuses)
        read = plan.main_ask.reads_section if plan.main_ask else None
        if read:
            if frame.condition is not None and bundle.evidence:
                section_line = self.section_reading(read, frame.condition, bundle)
                lines += [section_line] if section_line else []
        elif bundle.ranked_drugs or bundle.wider_drugs or bundle.incidental_drugs:
            # a patient case names the first drugs found beyond the table and counts the rest
            which = self.which_drugs(bundle, frame if bundle.candidate_statuses else None, named_below)
            asked_class = reading.asked_class
            if asked_class:
                # the list is by section text, never by class: it must not read as "only these"
                which.insert(
                    -1,
                    f"Danh sách không lọc theo nhóm “{asked_class}” trong câu hỏi: thuốc thuộc nhóm khác "
                    "cũng có trong danh sách. Nhóm của từng thuốc ở mục “Loại thuốc”.",
                )
        after: list[str] = list(which) if named_below else []
        lines += [] if named_below else which
        if bundle.candidate_statuses:
            lines.append(
                f"Đối chiếu với người bệnh: {self.patient(frame)}. Bảng nói mục nào của Dược thư có nêu "
                "người bệnh này; “mục không nêu” KHÔNG có nghĩa là an toàn."
            )
            lines += self.levels_not_told(frame, bundle)
            # the notice a reply to check against the print opens with is part of the budget too
            notice = len(VERIFY_NOTICE) + 1 if bundle.decision == "VERIFY_PDF" else 0
            used = notice + sum(len(line) + 1 for line in (*lines, *after))
            table = PatientTable(self.titles).lines(frame, bundle, used=used)
        assessed = {status.drug_id for status in bundle.candidate_statuses}
        unchecked = [d.display_name for d in bundle.ranked_drugs if d.drug_id not in assessed]
        if assessed and unchecked:
            # a policy that checks fewer drugs than it shows: the rest must not look checked
            after.append(
                f"- {', '.join(unchecked)}: CHƯA đối chiếu với người bệnh (mỗi câu trả lời chỉ đối chiếu "
                f"{len(assessed)} thuốc đầu); hãy hỏi riêng về thuốc đó."
            )
        return lines, table, after

    @staticmethod
    def levels_not_told(frame: QueryFrame, bundle: EvidenceBundle) -> list[str]:
        """A contraindication the patient may be inside of ("suy thận nặng" for a patient with
        "suy thận") is shown as one; say that the level was not given, so it reads as "check"."""
        if not any(c.status == "CONTRAINDICATED" for c in bundle.candidate_statuses):
            return []
        concepts = PatientProfile.from_frame(frame).levels_not_told()
        if not concepts:
            return []
        told = ", ".join(LEVEL_NOT_TOLD[c] for c in concepts)
        return [
            f"Câu hỏi chưa nêu {told}: chống chỉ định chỉ ở một mức hay một giai đoạn (câu trích dưới đây "
            "nêu mức đó) vẫn được ghi là CHỐNG CHỈ ĐỊNH; hãy đối chiếu với người bệnh."
        ]

    @staticmethod
    def patient(frame: QueryFrame) -> str:
        """The patient facts the safety statuses were checked against, so the user can see them
        (some may come from an earlier turn)."""
        context = frame.patient_context
        who = [POPULATION_NAMES[frame.population]] if frame.population else []
        if frame.age_text:
            who.append(frame.age_text)
        listed = (
            ("", tuple(who)),
            ("đang dùng", context.current_medications),
            ("bệnh kèm theo:", context.comorbidities),
            ("dị ứng:", context.allergies),
            ("phản ứng có hại đã gặp:", context.adverse_reactions),
            ("xét nghiệm:", context.labs),
        )
        facts = [f"{label} {', '.join(values)}".strip() for label, values in listed if values]
        if context.renal_function:
            facts.append(f"chức năng thận: {context.renal_function}")
        if context.hepatic_function:
            facts.append(f"chức năng gan: {context.hepatic_function}")
        if context.pregnancy:
            facts.append("đang mang thai")
        if context.breastfeeding:
            facts.append("đang cho con bú")
        return "; ".join(facts) or "không có thông tin cụ thể"

    def named_by_class(self, bundle: EvidenceBundle) -> list[str]:
        """An interaction part that names an asked drug only by its class says so: the formulary
        text is about the class, and the drug is in it by its own "Loại thuốc" section."""
        part_of = {item.id: (item.drug_id, item.section_key) for item in bundle.evidence}
        said: dict[tuple[str, str, str], list[str]] = {}
        for mention in bundle.named_by_class:
            wordings = said.setdefault((*part_of[mention.evidence_id], mention.drug_id), [])
            if mention.wording not in wordings:
                wordings.append(mention.wording)
        return [
            f"Mục {SECTION_HEADINGS.get(section, section)} của {self.names([owner])} không nêu tên "
            f"{self._named(drug)} mà nêu nhóm {self.quoted(wordings)}; {self._classed_by(drug)} xếp thuốc "
            "này vào nhóm đó."
            for (owner, section, drug), wordings in said.items()
        ]

    def _named(self, drug: str) -> str:
        return self.names([drug]) if drug in self.titles else self.quoted([drug])

    def _classed_by(self, drug: str) -> str:
        """Where the drug's class is read: its monograph's "Loại thuốc", or for a name outside the
        catalogue the kit's ATC table, which the reply says is not the formulary."""
        if drug in self.titles:
            return f"mục Loại thuốc của {self.names([drug])}"
        return "bảng mã ATC kèm theo (không phải Dược thư)"

    def section_reading(
        self, section_key: str, condition: ConditionQuery, bundle: EvidenceBundle
    ) -> str | None:
        """ "X có trị / gây Y không?": how X's section, quoted below, names Y
        (`reverse.with_section_reading`). Found by the formulary's wording, so never a "no"; and
        outside chỉ định nothing at all when Y is not found: "not found among the reactions" would
        read as "does not cause it" where the section words it otherwise ("tiêu chảy" for "đi
        ngoài")."""
        drug = self.names([bundle.evidence[0].drug_id])
        heading, asked = SECTION_HEADINGS[section_key], condition.text
        # what was searched: "phù" for "phù cổ chân", "chảy máu cam" narrowed
        found = " ".join(w for w in (condition.normalized or asked, condition.subtype) if w)
        if bundle.ranked_drugs:
            if section_key == ADR_SECTION:
                return None  # the section stating it, and its sentence, lead the reply (answer.lines)
            return f"Mục “{heading}” của {drug} có nêu “{found}” (xem trích dẫn dưới đây)."
        if bundle.incidental_drugs:
            return (
                f"Mục “{heading}” của {drug} chỉ nêu “{found}” trong tên một bệnh khác hoặc như một nguy cơ, "
                "không phải như bệnh được điều trị."
            )
        if bundle.wider_drugs:
            wider = bundle.wider_drugs[0].wider_finding
            return (
                f"Mục “{heading}” của {drug} không nêu đúng “{found}” mà ghi “{wider}”, một tình trạng rộng "
                "hơn bao gồm cả tình trạng đó."
            )
        wordings = wordings_of(condition.normalized or condition.text)
        mentioned = any(
            phrase_position(item.text, words(w), lenient=True) >= 0
            for item in bundle.evidence
            if item.section_key == section_key
            for w in wordings
        )
        if mentioned:
            # "không có hiệu quả điều trị … viêm khớp dạng thấp", "hầu như không gây kích ứng dạ dày"
            return (
                f"Mục “{heading}” của {drug} có nhắc đến “{asked}” nhưng không theo nghĩa bạn hỏi "
                "(ví dụ trong một câu phủ định); hãy đọc nguyên văn dưới đây."
            )
        if section_key != "chi_dinh":
            return None
        return (
            f"Không tìm thấy “{asked}” trong mục “{heading}” của {drug} theo cách Dược thư viết tình trạng "
            "này; Dược thư có thể ghi bằng từ khác, nên hãy đọc toàn mục dưới đây."
        )

    @staticmethod
    def ask_about_one_drug(frame: QueryFrame) -> str:
        """An example question about one drug for the patient a safe-list question named, with a
        slot for the drug: no drug is suggested."""
        context = frame.patient_context
        if context.allergies:
            who = f"người dị ứng {context.allergies[0]}"
        elif frame.condition is not None:
            who = f"người {frame.condition.text}"
        elif frame.population in POPULATION_NAMES:
            who = POPULATION_NAMES[frame.population]
            who = f"người {who}" if who.startswith("suy") else who
        else:
            return "metformin dùng cho người suy thận được không?"
        return f"[tên thuốc] dùng cho {who} được không?"

    which_drugs = staticmethod(which_drugs)  # the list's lines (`answer.which_drugs`)

    @staticmethod
    def dosing_echo(frame: QueryFrame, computation: bool = False) -> str:
        # No dose arithmetic: the formulary's dosing text is quoted, the stated facts echoed.
        facts = []
        if frame.weight_kg is not None:
            facts.append(f"cân nặng {frame.weight_kg:g} kg")
        if frame.age_text:
            facts.append(f"tuổi: {frame.age_text}")
        stated = f" Thông tin bạn nêu: {', '.join(facts)}." if facts else ""
        if computation:  # a conversion, a volume or a rate asked: declined in one sentence
            return (
                "Tôi không tính hay quy đổi liều, thể tích hay tốc độ truyền (việc này nằm ngoài nội dung "
                f"Dược thư); hãy đối chiếu với nguyên văn mục Liều lượng và cách dùng của Dược thư.{stated}"
            )
        # the section is quoted below or, in a reply kept short, a button away: said for both
        return (
            "Tôi không tự tính liều; hãy đối chiếu với nguyên văn mục Liều lượng và cách dùng của "
            f"Dược thư.{stated}"
        )


def unwritten(reading: TurnReading, bundle: EvidenceBundle) -> tuple[str, ...]:
    """The joined names the quoted text does not write, and the real drugs among them (said to have
    no monograph, wherever the book names them): a name no list holds that the quoted text writes
    is a word of the book (an organism, a test), never "not found" in it."""
    names, real = reading.joined_unknown_names, reading.outside_together
    written = {n for n in names if any(contains_phrase(item.text, n) for item in bundle.evidence)}
    return tuple(n for n in names if n not in written or n in real)
