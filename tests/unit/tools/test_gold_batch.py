"""Every gold message through the batch, and two runs compared by id only."""

from __future__ import annotations

import json
from pathlib import Path

from duocthu.tools.gold_batch import differing_ids, gold_messages


def test_every_message_and_question_becomes_one_batch_line_with_its_history(tmp_path: Path) -> None:
    # Given a gold folder with a question file and a conversation file in a subfolder
    (tmp_path / "a.jsonl").write_text('{"id": "x", "question": "Liều paracetamol?"}\n', encoding="utf-8")
    (tmp_path / "sub").mkdir()
    row = {"id": "c", "turns": ["Chỉ định của amoxicilin?"], "message": "Còn liều?"}
    (tmp_path / "sub" / "b.jsonl").write_text(json.dumps(row, ensure_ascii=False) + "\n\n", encoding="utf-8")
    # When the batch input is built
    lines = [json.loads(line) for line in gold_messages(tmp_path)]
    # Then each message is one line, named by its file and line, with the earlier turns as history
    assert lines == [
        {"id": "a.jsonl:1", "message": "Liều paracetamol?", "history": []},
        {
            "id": "sub/b.jsonl:1",
            "message": "Còn liều?",
            "history": [{"role": "user", "content": "Chỉ định của amoxicilin?"}],
        },
    ]


def test_runs_differ_by_anything_but_their_timing() -> None:
    before = ['{"id": "a", "answer": "x", "elapsed_ms": 1.0}', '{"id": "b", "answer": "y", "elapsed_ms": 2}']
    same = ['{"id": "b", "answer": "y", "elapsed_ms": 9}', '{"id": "a", "answer": "x", "elapsed_ms": 5}']
    assert differing_ids(before, same) == []
    changed = ['{"id": "a", "answer": "z", "elapsed_ms": 1.0}']
    assert differing_ids(before, changed) == ["a", "b"]  # b missing after is a difference too
