"""The contracts the layers pass to each other, importing nothing above `core`.

- `frame`: QueryFrame (what one turn asks), PatientContext, ConditionQuery, with lenient validation.
- `reading`: TurnReading, what understanding read in the turn's words beyond the frame.
- `evidence`: SourceRef (its citation line), EvidenceItem, EvidenceBundle, ranked drugs, statuses.
- `source`: the formulary source records (`docs/source-format.md`).
- `chunk`: one part of a section with the payload the stores index.
"""
