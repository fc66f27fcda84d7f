"""The free-form route (reference 09 §4): a question about a resolved drug that names no section.

Candidates are the drug's whole monograph, prose parts only (block descriptors stay out of a text
answer). They are ordered, cut to the ordering's top `rerank_top_k`, then packed to the token
budget (`duocthu.retrieval.packing`), and the bundle says which ordering was used and why (`ordering`):

- `rerank:<provider>:<model>`: a configured reranker ordered them (Cohere Rerank 3.5);
- `lexical:<scoring>; no reranker configured`: the offline default;
- `lexical:<scoring>; rerank failed (<why>)`: the reranker timed out or failed; the bundle also
  carries `system_error="rerank_unavailable"`. Reranking is an ordering aid, so its failure never
  fails the answer (fail-open), and the packing cap applies all the same.

Never book order: the pharmacology section comes early in the book, is the largest, and sits close
to almost any question about the drug (reference 09 measured similarity at hit@1 0.05 on
contraindications because of it), so book order would hand it to every free-form question.

Lexical ordering scores each part against the question's words (stop words left out, folded as in
the store's lexical vector), without the drug's own name (the candidates are all that drug's
parts, so its name says nothing about which part answers). Two scorings, measured against each
other by `duocthu eval free-form` (docs/quality.md, "Free-form ordering"):

- `matches`: the count of distinct question words a part contains, the store's lexical score;
- `bm25`: the store's Okapi BM25 over the drug's sentences (`store.search_lines`: Qdrant's sparse
  vectors with the IDF modifier, IDF from the whole book, the section heading's words counted with
  each sentence); a part scores as its best sentence, so one sentence that answers outranks a long
  part that mentions the words in passing.

Parts sharing no word with the question are never ordered in: with nothing lexical to go on, the
route abstains (`insufficient_retrieval_score`) rather than answer from an arbitrary part.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Literal, get_args

from duocthu.core.deadline import Deadline
from duocthu.core.ports import Reranker
from duocthu.core.sections import CONTRAINDICATION_SECTION, SECTION_HEADINGS
from duocthu.core.text import folded_words
from duocthu.models.evidence import EvidenceBundle, EvidenceItem
from duocthu.retrieval.decision import EvidencePolicy, decide
from duocthu.retrieval.packing import TokenCounter, estimate_tokens, pack_evidence
from duocthu.store import VectorStore
from duocthu.store.base import lexical_query_tokens

log = logging.getLogger(__name__)

Scoring = Literal["bm25", "matches"]
SCORINGS: tuple[Scoring, ...] = get_args(Scoring)
# Chosen by `duocthu eval free-form` on the dev split (docs/quality.md, "Free-form ordering").
DEFAULT_SCORING: Scoring = "bm25"  # dev: recall@6 0.978 vs 0.911, hit@1 0.667 vs 0.644
# Sentences read for the ordering: a monograph's sentences that share a word with the question
LINES_READ = 512
# Without a request deadline (outside Lambda) the reranker's own timeout is the bound.
NO_DEADLINE_S = 30.0


def scored_text(item: EvidenceItem) -> str:
    """What a part is matched and reranked on: its section heading, then its text. The heading
    carries the words a question uses for the topic ("thận trọng", "tương tác") that the part's
    own sentences rarely repeat."""
    return f"{SECTION_HEADINGS.get(item.section_key, item.section_key)}: {item.text}"


def question_terms(query: str, candidates: Sequence[EvidenceItem]) -> list[str]:
    """The question's distinct folded words, stop words, numbers and the drug's own name left out.
    A number in a question is the patient's ("80 tuổi", "ClCr 25"): as a term it would pick the
    part that happens to print it ("viên nén 80 mg")."""
    name = {word for item in candidates[:1] for word in folded_words(item.display_name)}
    return [term for term in lexical_query_tokens(query) if term not in name and not term.isdigit()]


def lexical_scores(
    store: VectorStore, terms: Sequence[str], candidates: Sequence[EvidenceItem], scoring: Scoring
) -> list[float]:
    """Each candidate's score against the question terms (0 when it contains none of them)."""
    if not candidates or not terms:
        return [0.0] * len(candidates)
    if scoring == "matches":
        return [float(len(set(terms) & set(folded_words(scored_text(item))))) for item in candidates]
    # the store's BM25 over the drug's sentences (IDF from the whole book, heading words counted):
    # a part scores as its best sentence
    best: dict[str, float] = {}
    for line in store.search_lines(terms, drug_id=candidates[0].drug_id, limit=LINES_READ):
        best.setdefault(line.part_id, line.score)  # best first
    return [best.get(item.id, 0.0) for item in candidates]


def lexical_order(
    store: VectorStore, query: str, candidates: Sequence[EvidenceItem], scoring: Scoring = DEFAULT_SCORING
) -> list[EvidenceItem]:
    """Candidates that share a word with the question, best score first, each carrying its
    lexical score; ties keep the candidates' order (book order, as `find_by_drug` returns them)."""
    scores = lexical_scores(store, question_terms(query, candidates), candidates, scoring)
    ranked = sorted(
        ((score, i) for i, score in enumerate(scores) if score > 0), key=lambda pair: (-pair[0], pair[1])
    )
    return [candidates[i].model_copy(update={"score": round(score, 4)}) for score, i in ranked]


def reranked_order(
    query: str, candidates: Sequence[EvidenceItem], reranker: Reranker, top_n: int, deadline: Deadline
) -> list[EvidenceItem]:
    """The reranker's top `top_n`, best first, each carrying its relevance score; raises whatever
    the provider raises."""
    documents = [scored_text(item) for item in candidates]
    ranking = reranker.rerank(query, documents, top_n, deadline)
    return [candidates[r.index].model_copy(update={"score": round(r.score, 4)}) for r in ranking]


def free_form(
    store: VectorStore,
    drug_id: str,
    query: str,
    policy: EvidencePolicy,
    reranker: Reranker | None = None,
    deadline: Deadline | None = None,
    scoring: Scoring = DEFAULT_SCORING,
    count_tokens: TokenCounter = estimate_tokens,
) -> EvidenceBundle:
    """Order the drug's prose parts for the question, keep the top `rerank_top_k`, pack them to
    `max_context_tokens` (a contraindication part brings its whole section: `whole_contraindications`),
    and decide. Store faults propagate (a dependency fault, not an ordering
    one); a reranker fault never does."""
    candidates = store.find_by_drug(drug_id, chunk_kind="prose")
    if not candidates:
        return EvidenceBundle(decision="ABSTAIN", reason="insufficient_retrieval_score")
    top_k = policy.rerank_top_k
    ordered: list[EvidenceItem] | None = None
    system_error: Literal["rerank_unavailable"] | None = None
    if reranker is None:
        ordering = f"lexical:{scoring}; no reranker configured"
    else:
        try:
            ordered = reranked_order(
                query, candidates, reranker, top_k, deadline or Deadline.after(NO_DEADLINE_S)
            )
            ordering = f"rerank:{reranker.name}:{reranker.model}"
        except Exception as err:  # any failure of an ordering aid: fail open, and say so
            log.warning("rerank unavailable, ordering lexically: %s: %s", type(err).__name__, err)
            ordering = f"lexical:{scoring}; rerank failed ({type(err).__name__})"
            system_error = "rerank_unavailable"
    if ordered is None:
        ordered = lexical_order(store, query, candidates, scoring)[:top_k]
        if not ordered:
            return EvidenceBundle(
                decision="ABSTAIN",
                reason="insufficient_retrieval_score",
                ordering=f"{ordering}; no part shares a word with the question",
                system_error=system_error,
            )
    packed = pack_evidence(ordered, policy.max_context_tokens, count_tokens)
    if not packed.evidence:  # the best part alone is over the budget: never cut, never skipped
        bundle = EvidenceBundle(
            decision="ABSTAIN",
            reason="insufficient_retrieval_score",
            omitted_evidence_ids=packed.omitted_evidence_ids,
        )
    else:
        evidence = whole_contraindications(packed.evidence, candidates)
        kept = {item.id for item in evidence}
        bundle = decide(evidence, [i for i in packed.omitted_evidence_ids if i not in kept])
    return bundle.model_copy(update={"ordering": ordering, "system_error": system_error})


def whole_contraindications(
    evidence: Sequence[EvidenceItem], candidates: Sequence[EvidenceItem]
) -> list[EvidenceItem]:
    """The evidence with a contraindication part ordered in completed to its whole section, in part
    order where its first part stood: part of the list quoted under its heading would read as the
    whole of it (the packing cap gives way, as the section route's does)."""
    at = next((i for i, item in enumerate(evidence) if item.section_key == CONTRAINDICATION_SECTION), None)
    if at is None:
        return list(evidence)
    ordered = {item.id: item for item in evidence}  # a part ordered in keeps its score
    whole = sorted(
        (ordered.get(item.id, item) for item in candidates if item.section_key == CONTRAINDICATION_SECTION),
        key=lambda item: item.part_index,
    )
    rest = [item for item in evidence if item.section_key != CONTRAINDICATION_SECTION]
    return [*rest[:at], *whole, *rest[at:]]
