"""The offline understanding provider: the frame built deterministically from the cue tables, without a
model. `provider.offline_frame` is the index: it runs the reading stages in order, each adding to the
`reading.Reading`, then tries the framing stages in order, the first that frames the turn deciding
it. Each stage is one function of the module named for what it reads or decides (`attribute`,
`names`, `complaints`, `decision`, `together`, `clarify`, `turn_type`, `follow_up`, `direction`).
"""
