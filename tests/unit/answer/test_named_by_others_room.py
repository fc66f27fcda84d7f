""" "Which drugs interact with X": X's own interaction section whole, then the other drugs whose
section names X, fitted to what the reply target leaves (`relation_list.named_by_others`): fewer
first sentences and classes shown, never a drug dropped from the list. On the sample formulary."""

from __future__ import annotations

import re
from pathlib import Path

from duocthu.answer.reply_budget import REPLY_CHARS
from duocthu.models.reply import DrugListBlock
from duocthu.tools.evals.answers import run_turns


def test_the_other_drugs_list_fits_the_room_the_own_section_leaves_and_keeps_every_drug(
    tmp_path: Path,
) -> None:
    turn = run_turns(["Những thuốc nào tương tác với digoxin?"], tmp_path)[0]
    assert "【Digoxin】 Tương tác thuốc" in turn.answer  # the own section, whole, first
    counted = re.search(r"Mục “Tương tác thuốc” của (\d+) thuốc nhắc đến Digoxin", turn.answer)
    assert counted and int(counted.group(1)) > 12  # a long list: grouped by class
    assert turn.reply is not None
    listed = [b for b in turn.reply.blocks if isinstance(b, DrugListBlock)]
    assert len(listed) == 1 and len(listed[0].drugs) == int(counted.group(1))
    assert len(turn.answer) <= REPLY_CHARS
    assert "Câu trong mục “Tương tác thuốc” của các thuốc đầu danh sách:" in turn.answer
