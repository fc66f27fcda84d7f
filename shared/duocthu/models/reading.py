"""What understanding read in a turn's own words beyond the frame: computed once, in understanding,
and carried in the turn's plan (`duocthu.models.plan.Plan.reading`), so retrieval and the answer
never scan the message again.

It crosses the wire inside the plan (Step Functions), so it is a model, not an in-process object.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class TurnReading(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # The question as written: what lexical ordering, pooling and grounded generation search and
    # quote with. Never read again for what the turn means.
    text: str
    # The words the clinical lexicon adds in the formulary's own wording ("NaCl" -> "natri clorid",
    # "TM" -> "tĩnh mạch"): what a ranking of the monograph's sentences reads beside the text.
    formulary_words: str = ""
    # Closed by "không" ("dùng được không?"): whether this patient may take the drug.
    yes_or_no: bool = False
    # Names the catalogue lacks that the question joins to a catalogue drug ("paracetamol và
    # tramadol"): an answer from that drug's text alone must say it does not cover them.
    joined_unknown_names: tuple[str, ...] = ()
    # Names the catalogue lacks that are real drugs (an INN or brand of the ATC table): wherever
    # they stand in the question, the reply says they are not in this formulary.
    outside_formulary: tuple[str, ...] = ()
    # Of the joined names, those that are real drugs (the ATC table), wherever they stand.
    outside_together: tuple[str, ...] = ()
    # The kinds of request read that the formulary does not serve as asked (price, missed_dose,
    # compute, write, …): whether a decline says why before the lines it quotes.
    not_covered: tuple[str, ...] = ()
    # Asks which drugs ("thuốc nào …", "những thuốc … nào"): with no list read, the book's own
    # sentences are read for it before a decline or a question back.
    asks_which_drug: bool = False
    # Every section the words point to, strongest first (understanding.cue_readings).
    candidate_sections: tuple[str, ...] = ()
    # Shorthand read as a catalogue drug ("amox" -> amoxicilin), as (written, drug_id): the reply
    # says which drug it read.
    read_as: tuple[tuple[str, str], ...] = ()
    # The drug class a question names, as written ("thuốc giảm đau"), for a class-wide answer.
    asked_class: str | None = None
    # Asks for a maximum ("liều tối đa … một ngày"): the section's sentence that states one is the
    # answering line (duocthu.answer.lines, data/answer_focus.tsv).
    asks_maximum: bool = False
    # Besides the drugs' names and the section's words, only words of asking ("là gì", "thế nào")
    # or of reading a section whole ("xem toàn mục"): the section itself is asked for.
    only_section_words: bool = False

    @property
    def asks_computation(self) -> bool:
        """A dose, volume or rate to compute or convert: declined in one sentence, then quoted."""
        return "compute" in self.not_covered
