"""Quality measurements: `duocthu eval NAME [options]` runs `duocthu.evals.NAME.main(argv)`."""
