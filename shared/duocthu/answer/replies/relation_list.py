"""Which drugs' sections name the finding asked (what causes it, what it contraindicates or needs
caution in), across the whole book: by the section that names it, each drug with the sentence
that names it; more than LONG_LIST drugs under one section are grouped by class (the head of each
drug's "Loại thuốc", `catalog.drug_class`), each group counted with its first few names, with its
first drugs' sentences and a quick reply per leading class. Every drug found stays in the list
block (a list is never cut short in silence), and the reply stays within the reply target.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from pydantic import TypeAdapter

from duocthu.answer.blocks import verify_notice
from duocthu.answer.generation import citations_of
from duocthu.answer.indication_lines import LINE_WINDOW, LONGEST_LINE, SOURCE, clip, pages
from duocthu.answer.replies.context import Composed, Composer, compact, lines_block
from duocthu.answer.reply_budget import REPLY_CHARS, size_of
from duocthu.answer.wording import POPULATION_NAMES
from duocthu.core.phrases import contains_phrase
from duocthu.core.sections import INDICATION_SECTION, INTERACTION_SECTION, SECTION_HEADINGS
from duocthu.core.sentences import split_sentences
from duocthu.core.text import words
from duocthu.models.evidence import EvidenceBundle, EvidenceItem, GatheredEvidence, RankedDrug
from duocthu.models.plan import Ask, Plan
from duocthu.models.reply import Block, DrugListBlock, ListedDrug, NoticeBlock
from duocthu.retrieval.interactions import classes_asked_among, classes_named
from duocthu.retrieval.reverse.reading import phrase_position
from duocthu.retrieval.reverse.relation import relation_searches
from duocthu.retrieval.reverse.wordings import advice_sections, wordings_of

LONG_LIST = 12
NAMES_PER_CLASS = 3
CLASSES_SHOWN = 8
FEWEST_CLASSES = 3  # a list short of room shows at least this many classes
CLASS_REPLIES = 3
OTHER_CLASS = "Chưa rõ loại thuốc"
LINE_BUDGET = 2200  # the quoted lines' share of the reply's 3,000 characters
QUOTED_OF_LONG = 4  # a long list quotes the sentences of its first drugs
FEWEST_QUOTED = 2  # of them, at least this many when the reply has little room left
SUMMARY_LINE = 80  # a class line's length, about
SECONDING_WINDOW = 70  # a population section's line seconding a contraindication: its clause
NAMES = "nêu tình trạng này"
ADVICE = "khuyên không dùng hoặc tránh dùng thuốc"
CAVEATS = (
    "Danh sách tìm theo cách Dược thư viết tình trạng này; thuốc nào ghi bằng từ khác có thể không có ở "
    "đây, nên hãy đọc mục đó của thuốc bạn quan tâm hoặc tra bản PDF.",
    "Đây là trích dẫn từ Dược thư, không phải khuyến cáo chọn thuốc.",
)
OTHERS_LEAD = (
    "Dược thư ghi một tương tác ở chuyên luận của một trong hai thuốc, nên dưới đây là các thuốc khác "
    "có mục Tương tác thuốc nhắc đến thuốc bạn hỏi."
)
OTHERS_CAVEAT = (
    "Danh sách tìm theo tên của thuốc bạn hỏi; mục chỉ ghi nhóm của thuốc này (ví dụ “thuốc chống đông”) "
    "có thể không có ở đây, nên hãy đọc mục Tương tác thuốc của thuốc bạn quan tâm hoặc tra bản PDF."
)
ADVICE_CAVEAT = (
    "Lời khuyên trong mục về một nhóm người bệnh có khi chỉ áp dụng cho một liều hay một giai đoạn; "
    "hãy đọc nguyên văn mục đó của từng thuốc."
)


def relation_list(composer: Composer, plan: Plan, bundle: EvidenceBundle) -> Composed:
    listing = RelationList(composer, plan, bundle)
    # what the list holds of a class asked is said after the drugs it lists, as how the list was
    # found is: the drugs and their lines lead (`class_asked` also orders the drugs, so it runs first)
    classes = listing.class_asked()
    lines = [
        *listing.no_monograph(),
        *listing.by_section(),
        *listing.wider(),
        *classes,
        *listing.not_named_among(),
        *listing.searched_as(),
        *CAVEATS,
    ]
    listed = listing.listed((*listing.drugs, *bundle.wider_drugs))
    body: list[Block] = [DrugListBlock(drugs=listed, lines=tuple(lines))]
    return compact(composer, plan, bundle, body, listing.replies)


# A list names hundreds of drugs at the book's size: validated in one call, not one model at a time.
_LISTED = TypeAdapter(tuple[ListedDrug, ...])


class RelationList:
    def __init__(self, composer: Composer, plan: Plan, bundle: EvidenceBundle, ask: Ask | None = None):
        self.titles, self.classes = composer.titles, composer.wording.classes
        self.plan, self.bundle = plan, bundle
        self.drugs = [*bundle.ranked_drugs, *bundle.unlisted_drugs]
        self.by_id = {item.id: item for item in bundle.evidence}
        # what the lookup searched: narrowed first, then (as retrieval falls back) the finding alone
        frame = plan.frame
        ask = ask or plan.main_ask
        asked, names = (ask.candidate_sections, ask.unknown_names) if ask else ((), ())
        owns = ask.drugs if ask else ()  # a catalogue drug asked: its names were searched
        searched = (*names, *(name for drug in owns for name in plan.names.get(drug, ())))
        searches = (
            *relation_searches(frame, candidates=asked, names=searched),
            *relation_searches(frame, narrowed=False, candidates=asked, names=searched),
        )
        written = (bundle.searched_as,) if bundle.searched_as else ()
        phrases = [*(p for search in searches for p in search.phrases), *written]
        self.wordings = _with_wordings(phrases)
        # a drug's line names what its own section was searched for: a section's avoidance
        # wording ("không dùng") quoted from another section would pick any sentence saying it
        by_section: dict[str, list[str]] = {}
        for search in searches:
            by_section.setdefault(search.section_key, []).extend((*search.phrases, *written))
        self.section_wordings = {key: _with_wordings(ps) for key, ps in by_section.items()}
        self.replies: list[str] = []
        # what a section says of the finding, or of a name asked that has no monograph
        quoted = ", ".join([*(f"“{name}”" for name in names), *(self.titles.get(d, d) for d in owns)])
        quoted = quoted or (f"“{bundle.searched_as}”" if bundle.searched_as else "")
        self.names_what = f"nhắc đến {quoted}" if quoted else NAMES
        self.owns = owns
        self.among = ask.among if ask else ()
        self.window = LINE_WINDOW
        self.quoted_of_long = QUOTED_OF_LONG
        self.most_quoted = QUOTED_OF_LONG * LONG_LIST  # lowered only to fit a reply's room
        self.line_budget = LINE_BUDGET
        self.classes_shown = CLASSES_SHOWN

    def name(self, drug: RankedDrug) -> str:
        return self.titles.get(drug.drug_id, drug.display_name)

    def listed(self, drugs: Sequence[RankedDrug]) -> tuple[ListedDrug, ...]:
        """The drugs as the list block carries them: name, the section naming them, their class."""
        return _LISTED.validate_python(
            [
                {
                    "drug_id": d.drug_id,
                    "name": self.name(d),
                    "section_key": d.section_key,
                    "drug_class": self.classes.get(d.drug_id),
                }
                for d in drugs
            ]
        )

    def no_monograph(self) -> list[str]:
        """A name asked of the sections that has no monograph of its own: said, then the drugs
        whose section names it (never "not found" when the book names it)."""
        if self.names_what == NAMES or self.owns or self.bundle.searched_as:
            return []
        return [
            f"Dược thư không có chuyên luận riêng cho tên này; các thuốc dưới đây có mục {self.names_what}."
        ]

    def searched_as(self) -> list[str]:
        """A finding searched as the words of it the book writes: said, after the list it found."""
        asked, run = self.plan.frame.condition, self.bundle.searched_as
        if not run or asked is None:
            return []
        return [f"Không mục nào viết “{asked.text}” như câu hỏi: danh sách tìm theo “{run}”."]

    def class_asked(self) -> list[str]:
        """A class of the book's class table asked among ("NSAID nào …"): the lookup listed its
        members only, and the list says so. A broader word the question names is no filter: a drug
        of that class is put first and named, the others stay (an NSAID is an analgesic its "Loại
        thuốc" head may not call one)."""
        if self.among:  # the question named the drugs to choose among: no class narrows them
            return []
        among = classes_asked_among(self.plan.reading.text)
        heads = [classes_named(self.classes.get(d.drug_id) or "", affirmed_only=True) for d in self.drugs]
        if among and self.drugs and all(among.keys() & head.keys() for head in heads):
            named = ", ".join(f"“{w}”" for w in among.values())
            said = f"Chỉ gồm các thuốc mà mục “Loại thuốc” xếp vào nhóm {named}"
            return [f"{said}; hỏi lại không kèm tên nhóm để xem mọi thuốc."]
        asked = self.plan.reading.asked_class
        if not asked:
            return []
        inside = [d for d in self.drugs if _in_class(self.classes.get(d.drug_id), asked)]
        self.drugs = [*inside, *(d for d in self.drugs if d not in inside)]
        lines = [
            f"Danh sách không lọc theo nhóm “{asked}” trong câu hỏi: thuốc thuộc nhóm khác cũng có trong "
            "danh sách. Nhóm của từng thuốc ở mục “Loại thuốc”."
        ]
        if inside:
            names = ", ".join(self.name(d) for d in inside)
            lines.append(f"Mục “Loại thuốc” xếp vào nhóm “{asked}” (đứng đầu danh sách): {names}.")
        return lines

    def by_section(self, room: int | None = None) -> list[str]:
        """The list by section. With `room`, the characters the reply has left for it (after a
        section it quotes whole), a long list quotes fewer first sentences, then shows fewer
        classes, down to FEWEST_QUOTED and FEWEST_CLASSES, until it fits; every drug found stays
        counted in its class and in the list block."""
        replies = list(self.replies)
        self.line_budget = min(LINE_BUDGET, room) if room is not None else LINE_BUDGET
        lines = self._by_section()
        while room is not None and sum(len(x) + 1 for x in lines) > room and self._narrower():
            self.replies = list(replies)
            lines = self._by_section()
        return lines

    def _narrower(self) -> bool:
        if self.quoted_of_long > FEWEST_QUOTED:
            self.most_quoted = self.quoted_of_long - 1
        elif self.classes_shown > FEWEST_CLASSES:
            self.classes_shown -= 1
        else:
            return False
        return True

    def _by_section(self) -> list[str]:
        sections: dict[str, list[RankedDrug]] = {}
        for drug in self.drugs:
            sections.setdefault(drug.section_key or INDICATION_SECTION, []).append(drug)
        long_lists = sum(1 for ds in sections.values() if len(ds) > LONG_LIST)
        quoted = (
            sum(len(ds) for ds in sections.values() if len(ds) <= LONG_LIST) + QUOTED_OF_LONG * long_lists
        )
        room = self.line_budget - (self.classes_shown + 2) * SUMMARY_LINE * long_lists
        self.window = max(LINE_WINDOW, min(LONGEST_LINE, room // max(1, quoted) - SOURCE))
        # a long list quotes as many of its first drugs' sentences as the room leaves
        quotable = [d for ds in sections.values() if len(ds) <= LONG_LIST for d in ds if self.has_evidence(d)]
        short = len(quotable) * (self.window + SOURCE)
        per_list = (room - short) // max(1, long_lists) // (LINE_WINDOW + SOURCE)
        self.quoted_of_long = min(self.most_quoted, max(QUOTED_OF_LONG, per_list))
        lines: list[str] = []
        for section_key, listed in sections.items():
            heading = SECTION_HEADINGS[section_key]
            what = ADVICE if section_key in advice_sections() else self.names_what
            said = f"Mục “{heading}” của {len(listed)} thuốc {what}"
            if len(listed) <= LONG_LIST:
                lines += [f"{said}:", *(self.line(d) or f"- {self.name(d)}" for d in listed)]
                self.replies += [f"{heading} của {self.name(d)}" for d in listed]
            else:
                lines += self.grouped(said, heading, listed)
        if any(key in advice_sections() for key in sections):
            lines.append(ADVICE_CAVEAT)
        return lines

    def grouped(self, said: str, heading: str, listed: Sequence[RankedDrug]) -> list[str]:
        ordered = by_class(listed, self.classes, self.titles)
        lines = [f"{said}; theo nhóm ở mục “Loại thuốc”:", *class_lines(ordered, self.classes_shown)]
        first = _within(
            [q for drug in listed if (q := self.line(drug, window=LINE_WINDOW))],
            self.quoted_of_long * (LINE_WINDOW + SOURCE),
        )
        if first:
            lines += [f"Câu trong mục “{heading}” của các thuốc đầu danh sách:", *first]
        asked = self.narrowing()
        if asked:
            self.replies += [
                f"{group} nào {asked}?" for group, _ in ordered[:CLASS_REPLIES] if group != OTHER_CLASS
            ]
        return lines

    def narrowing(self) -> str | None:
        """What the question asks of each drug, for a quick reply asking it of one class ("gây
        buồn nôn", "chống chỉ định ở phụ nữ có thai"); None without a known finding or population."""
        frame = self.plan.frame
        condition = frame.condition.normalized if frame.condition is not None else None
        relation = frame.condition_relation or ""
        if condition:
            asked = {"adverse_effect": "gây {}", "contraindication": "chống chỉ định trong {}"}.get(relation)
            return asked.format(condition) if asked else None
        who = POPULATION_NAMES.get(frame.population or "")
        return f"chống chỉ định ở {who}" if who and relation == "contraindication" else None

    def not_named_among(self) -> list[str]:
        """The drugs the question lists to choose among whose sections searched do not name the
        finding: said by name, so none is read as answered, nor as safe, by being left out."""
        found = {d.drug_id for d in (*self.drugs, *self.bundle.wider_drugs)}
        left = [self.titles.get(d, d) for d in self.among if d not in found]
        if not left:
            return []
        read = ", ".join(f"“{SECTION_HEADINGS[key]}”" for key in self.section_wordings)
        return [
            f"Trong các thuốc bạn nêu, mục {read} của {', '.join(left)} không {self.names_what}; điều đó "
            "không có nghĩa là dùng được: hãy đọc toàn văn các mục của thuốc đó."
        ]

    def wider(self) -> list[str]:
        """The drugs whose section names only a wider finding, with the words it uses."""
        drugs = self.bundle.wider_drugs
        if not drugs:
            return []
        named = [f"{self.name(d)} (“{d.wider_finding}”)" for d in drugs]
        more = f" và {len(named) - LONG_LIST} thuốc khác" if len(named) > LONG_LIST else ""
        lines = [
            "Các thuốc sau ghi một tình trạng rộng hơn, bao gồm tình trạng bạn hỏi: "
            f"{', '.join(named[:LONG_LIST])}{more}."
        ]
        for drug in drugs[:QUOTED_OF_LONG]:
            found = self.line(drug, (drug.wider_finding,) if drug.wider_finding else ())
            lines += [found] if found else []
        return lines

    def has_evidence(self, drug: RankedDrug) -> bool:
        return any(i in self.by_id for i in drug.evidence_ids)

    def line(
        self, drug: RankedDrug, wordings: Sequence[str] | None = None, window: int | None = None
    ) -> str | None:
        """The drug's sentence naming what was searched, with its page; None when none is quoted."""
        items = [self.by_id[i] for i in drug.evidence_ids if i in self.by_id]
        own = [i for i in items if i.section_key == (drug.section_key or i.section_key)]
        if wordings is None:
            wordings = self.section_wordings.get(drug.section_key or "", self.wordings)
        quote = naming_line(own, wordings, window or self.window)
        if not quote:
            return None
        line = f"- {self.name(drug)} (tr. {pages(own)}): {quote}"
        # the population's own section seconding it (`relation.seconded`), in that section's words
        for part in (i for i in items if i not in own):
            wide = max(SECONDING_WINDOW, (window or self.window) // 2)
            # in that section's advice ("không dùng …"): what is not to be done follows it
            said = naming_line([part], self.section_wordings.get(part.section_key, ()), wide, says=True)
            if said:
                line += f" Mục “{SECTION_HEADINGS[part.section_key]}” (tr. {pages([part])}): {said}"
        return line


def named_by_others(
    composer: Composer, plan: Plan, evidence: GatheredEvidence, used: int = 0
) -> tuple[list[Block], list[str]]:
    """After one drug's own interaction section ("thuốc nào tương tác với X"): the other drugs
    whose section names X, grouped as a relation list, as a block and its citations; when none
    does, which sections were read. The formulary writes an interaction under either drug, so
    X's section alone would hide what only the other drug's page says. `used`: the characters
    the reply already holds; the list fits the rest of the reply target."""
    found = next((a for a in evidence.answers[1:] if plan.asks[a.ask].kind == "relation"), None)
    if found is None:
        return [], []
    bundle = found.bundle
    listing = RelationList(composer, plan, bundle, plan.asks[found.ask])
    if not listing.drugs:
        read = f"mục “{SECTION_HEADINGS[INTERACTION_SECTION]}” của {len(listing.titles) - 1} thuốc khác"
        return lines_block([f"Tôi đã đọc {read} trong Dược thư: không mục nào {listing.names_what}."]), []
    room = REPLY_CHARS - used - len(OTHERS_LEAD) - len(OTHERS_CAVEAT) - 2
    lines = [OTHERS_LEAD, *listing.by_section(room), OTHERS_CAVEAT]
    listed = listing.listed(listing.drugs)
    # a quoted part held for a check against the printed page says so where it is quoted
    verify: list[Block] = [verify_notice()] if bundle.decision == "VERIFY_PDF" else []
    return [*verify, DrugListBlock(drugs=listed, lines=tuple(lines))], list(citations_of(bundle.evidence))


def with_named_by_others(
    composer: Composer, plan: Plan, evidence: GatheredEvidence, composed: Composed
) -> Composed:
    """The reply with `named_by_others` after what it quotes, before its closing notices."""
    reply = composed.reply
    blocks, citations = named_by_others(composer, plan, evidence, size_of(reply.blocks))
    if not blocks:
        return composed
    blocks = [b for b in blocks if b not in reply.blocks]  # a notice the reply already gives, once
    end = len(reply.blocks)
    while end and isinstance(reply.blocks[end - 1], NoticeBlock):
        end -= 1
    placed = (*reply.blocks[:end], *blocks, *reply.blocks[end:])
    return replace(
        composed,
        reply=reply.model_copy(update={"blocks": placed}),
        citations=tuple(dict.fromkeys((*composed.citations, *citations))),
    )


def by_class(
    drugs: Sequence[RankedDrug], classes: Mapping[str, str], titles: Mapping[str, str]
) -> list[tuple[str, list[str]]]:
    """The drugs' names by the head of their "Loại thuốc", the largest group first."""
    groups: dict[str, list[str]] = {}
    for drug in drugs:
        groups.setdefault(classes.get(drug.drug_id) or OTHER_CLASS, []).append(
            titles.get(drug.drug_id, drug.display_name)
        )
    return sorted(groups.items(), key=lambda g: (-len(g[1]), g[0]))


def class_lines(ordered: Sequence[tuple[str, list[str]]], shown: int = CLASSES_SHOWN) -> list[str]:
    """One line per leading class (its count and first names), then how many drugs the rest hold."""
    lines = []
    for group, names in ordered[:shown]:
        more = f" và {len(names) - NAMES_PER_CLASS} thuốc khác" if len(names) > NAMES_PER_CLASS else ""
        lines.append(f"- {group} ({len(names)}): {', '.join(names[:NAMES_PER_CLASS])}{more}")
    rest = ordered[shown:]
    if rest:
        lines.append(f"- {len(rest)} nhóm khác: {sum(len(n) for _, n in rest)} thuốc.")
    return lines


def _with_wordings(phrases: Sequence[str]) -> tuple[str, ...]:
    """The phrases, then each one's other wordings, once each."""
    return tuple(dict.fromkeys([*phrases, *(w for p in phrases for w in wordings_of(p))]))


def naming_line(
    items: Sequence[EvidenceItem], wordings: Sequence[str], window: int, says: bool = False
) -> str | None:
    """The first sentence of the parts in book order that names one of the wordings, clipped
    around it (`clip`; `says`: the wordings say what is done): a list's own item before a later
    sentence naming it in passing, whatever part scored best."""
    for item in sorted(items, key=lambda part: part.part_index):
        for sentence in split_sentences(item.text.split("】 ", 1)[-1]):
            if any(phrase_position(sentence, words(w), lenient=True) >= 0 for w in wordings):
                return clip(sentence, wordings, window, says)
    return None


def _within(lines: Sequence[str], room: int) -> list[str]:
    """The first lines that fit `room` characters, at least FEWEST_QUOTED of them: a line that
    quotes two sections takes the room of two."""
    kept: list[str] = []
    for line in lines:
        if len(kept) >= FEWEST_QUOTED and sum(len(x) + 1 for x in (*kept, line)) > room:
            break
        kept.append(line)
    return kept


def _in_class(drug_class: str | None, asked: str) -> bool:
    """Whether a drug's "Loại thuốc" head holds the class asked, as whole words, marks aside."""
    return drug_class is not None and contains_phrase(drug_class, asked)
