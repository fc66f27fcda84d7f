"""POST /v1/feedback: a clinician's "Báo lỗi" on one turn, kept beside its session.

The report goes into the session's own state through the conversation store (so it lives and
expires with the turns it is about), under the store's versioned save. A session the store does
not hold is refused (`SessionNotFound`, 404); a store that cannot answer is a 503, never a silent
drop.
"""

from __future__ import annotations

import unicodedata

from duocthu.api.models import FeedbackRequest, FeedbackStored
from duocthu.api.services.chat import SessionNotFound, session_key
from duocthu.store.sessions import ConversationStore, Feedback


def record_feedback(
    store: ConversationStore, request: FeedbackRequest, principal: str | None = None
) -> FeedbackStored:
    """Raises SessionNotFound, or ConversationUnavailable when the store fails. The session is
    looked up as the chat route keys it, so a signed-in clinician reports only on their own."""
    state = store.load(session_key(request.session_id, principal))
    if state is None:
        raise SessionNotFound(request.session_id)
    note = unicodedata.normalize("NFC", request.note or "").strip() or None
    store.save(state.with_feedback(Feedback(turn_id=request.turn_id, note=note)))
    return FeedbackStored(session_id=request.session_id, turn_id=request.turn_id)
