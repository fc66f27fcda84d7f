"""A turn (+ history, prior frame) -> QueryFrame. Intent only: nothing here answers a question."""
