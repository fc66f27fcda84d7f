"""The offline understanding provider: the frame built deterministically from the cue tables, without a
model.
"""
