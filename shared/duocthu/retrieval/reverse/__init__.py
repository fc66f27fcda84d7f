"""Reverse lookup: a condition or finding -> the drugs whose sections name it (reference 09 §5)."""
