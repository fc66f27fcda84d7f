"""Pure rules with no I/O: text folding, phrase matching, the data tables, sections, vocabularies,
terms, the evidence policy, the deadline and the ports' protocols.
"""
