"""The conversation stores the integration tests build (moto with the template's table, files)."""

from tests.integration.test_conversation import dynamo_table, store  # noqa: F401 - fixtures
