"""The HTTP and direct-invoke contracts of the three functions (request/response models, errors)."""
