"""Quality measurements: `duocthu eval NAME [options]` runs `duocthu.tools.evals.NAME.main(argv)`."""
