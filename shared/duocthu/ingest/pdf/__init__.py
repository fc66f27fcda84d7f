"""Reading the formulary from its PDF (`duocthu convert-pdf`) and typesetting book-style test PDFs
(`duocthu render-pdf`). Build-time tools: the Lambda layer leaves `duocthu/ingest` out."""
