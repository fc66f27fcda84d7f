"""The contracts every layer passes around: the query frame, the evidence bundle, the formulary source,
the chunk.
"""
