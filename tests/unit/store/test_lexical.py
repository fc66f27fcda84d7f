"""The lexical vector's count property, computed inside Qdrant Edge on hand-made chunks."""

from __future__ import annotations

import uuid
from pathlib import Path

import qdrant_edge as qe
from duocthu.core.text import folded_words
from duocthu.store.lexical import lexical_terms, lexical_vector, token_index

DOCS = {
    "ulcer": "Chống chỉ định: loét dạ dày tá tràng tiến triển; loét dạ dày do thuốc.",
    "renal": "Thận trọng ở người suy thận, suy gan.",
    "none": "Bảo quản nơi khô ráo.",
}


def test_weights_are_one_per_distinct_token() -> None:
    terms = lexical_vector("loét loét dạ dày dày")
    assert terms.values == (1.0, 1.0, 1.0)
    assert token_index("loet") == token_index("loet") and token_index("loet") != token_index("da")


def test_dot_product_inside_qdrant_is_the_distinct_match_count(tmp_path: Path) -> None:
    shard = qe.EdgeShard.create(
        str(tmp_path / "s"),
        qe.EdgeConfig(vectors={}, sparse_vectors={"lexical": qe.EdgeSparseVectorParams()}),
    )
    ids = {}
    points = []
    for name, text in DOCS.items():
        ids[name] = str(uuid.uuid4())
        terms = lexical_vector(text)
        points.append(
            qe.Point(
                id=ids[name],
                payload={"name": name},
                vector={"lexical": qe.SparseVector(indices=list(terms.indices), values=list(terms.values))},
            )
        )
    shard.update(qe.UpdateOperation.upsert_points(points))
    query = "loét dạ dày ở người suy thận loét"
    q = lexical_terms(folded_words(query))
    hits = shard.query(
        qe.QueryRequest(
            limit=10,
            with_payload=True,
            query=qe.Query.Nearest(
                qe.SparseVector(indices=list(q.indices), values=list(q.values)), using="lexical"
            ),
        )
    )
    scores = {h.payload["name"]: h.score for h in hits}
    for name, text in DOCS.items():
        expected = len(set(folded_words(query)) & set(folded_words(text)))
        assert scores.get(name, 0.0) == expected, name
    # repeated "loét" counts once; "suy thận" and "người" count in the renal text
    assert (scores["ulcer"], scores["renal"], scores.get("none", 0.0)) == (3, 4, 0)
    shard.close()
