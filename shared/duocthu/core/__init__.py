"""Pure rules with no I/O beyond reading the data tables; every other layer builds on these.

- `text`: NFC, case and diacritic folding (only for matching), word tokens, the diacritics rule
  (`token_matches`), the yes/no form, stop words.
- `phrases`: the one phrase matcher (`phrase_starts`, `find_phrase`, `PhraseIndex`, `longest_spans`).
- `tables`: the one reader of `data/*.tsv` and `data/*.txt`.
- `sections`: the 19 section keys in book order, headings, intro sections, section phrases.
- `vocabulary`: the closed vocabularies of the frame and the evidence decision.
- `terms`, `conditions`: terms that hold a finding's words but are not it; the conditions a text names.
- `measures`: the patient's weight and age as a text states them.
- `policy`: `EvidencePolicy`, every retrieval limit of reference 09 in one place.
- `deadline`, `errors`: the turn's deadline; the errors that cross layers.
"""
