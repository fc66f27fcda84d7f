"""Formulary source -> chunks -> a new index version -> the catalogue artifact."""
