"""How much one turn may ask for. A message naming every drug in the book would gather and quote
every monograph (337 KB in 2.9 s for 40 names, slowing every other caller): beyond the cap the
turn is a question back (the plan's `clarify` reply: no retrieval, a short reply), and the names
are not carried into the next turn's context."""

from __future__ import annotations

from duocthu.models.frame import QueryFrame

# Well above a real question: the gold sets name at most 4 drugs in one turn, a patient's
# medicine list rarely more than a handful.
MAX_DRUGS_PER_TURN = 8
TOO_MANY_DRUGS = (
    "Câu hỏi nêu {count} thuốc; mỗi lượt hỏi tối đa {cap} thuốc. "
    "Bạn hãy hỏi lại với ít thuốc hơn, hoặc tách thành nhiều câu hỏi."
)


def within_limits(frame: QueryFrame) -> QueryFrame:
    count = len(frame.drugs)  # catalogue drugs: each one is retrieved and quoted
    if count <= MAX_DRUGS_PER_TURN:
        return frame
    text = TOO_MANY_DRUGS.format(count=count, cap=MAX_DRUGS_PER_TURN)
    return frame.model_copy(update={"drugs": (), "needs_clarify": True, "clarify_reason": text})
