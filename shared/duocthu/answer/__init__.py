"""One chat turn, and the text of its reply.

- `turn`: `ChatService.turn`: session -> understanding -> reading -> retrieval -> answer -> session.
- `wording`: the sentences around the quoted evidence (abstentions, which-drugs lists, patients).
- `generation`: the extractive answer (default) and the Bedrock grounded answer with its citation check.
- `patient_table`: a patient case's compact reply: the table of checked drugs and facet statuses,
  the alternative a section names, one sentence per part about the patient.
- `lines`: the answering line first: a section question's answering sentences (`AnswerLines`),
  or that the section does not say and what the section that does say says.
"""
