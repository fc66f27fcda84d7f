"""The drug catalogue: the artifact ingest writes, the names it carries, and the resolver over them."""
