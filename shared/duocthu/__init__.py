"""duocthu: grounded answers from the Vietnamese national drug formulary (the Lambda layer package)."""

__version__ = "0.1.0"
