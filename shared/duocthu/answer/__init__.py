"""One chat turn, and the text of its reply.

- `turn`: `ChatService.turn`: session -> understanding -> reading -> retrieval -> answer -> session.
- `wording`: the sentences around the quoted evidence (abstentions, which-drugs lists, patients).
- `generation`: the extractive answer (default) and the Bedrock grounded answer with its citation check.
"""
