"""A turn (+ history, prior frame) -> QueryFrame and its TurnReading. Intent only: nothing here
answers a question.

- `pipeline`: `understand`: scope -> candidates -> provider -> validation -> post-conditions -> merge.
- `scope`: is the question about a person or an animal; `candidates`: the only drugs a frame may name.
- `cues`, `cue_readings`: the cue tables and scanning; what the cues say a question asks.
- `facts`: the patient's facts; `product_names`: the product names the catalogue lacks.
- `postconditions`, `merge`: the checks every provider's frame passes; the prior-frame merge.
- `providers`: the `FrameProvider` port and the one place that picks it; `rules/`: the offline
  provider, as named stages; `bedrock`, `prompt`: the Bedrock provider and what the model sees.
- `reading`: `turn_reading`, the turn's words read once and handed on with the frame.
"""
