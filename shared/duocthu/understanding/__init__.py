"""A turn (+ history, prior frame) -> QueryFrame, its TurnReading and its Plan. Intent only: nothing
here answers a question. `pipeline` is the entry; `tags` reads each line once; `rules/` is the
offline provider, `bedrock` and `prompt` the model's; `plan` and `several_asks` turn frames into asks.
"""
