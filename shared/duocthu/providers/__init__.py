"""Outside services, each behind a small protocol (`duocthu.core.ports`): the Bedrock Runtime
client, Cohere Rerank (Cohere API or Bedrock), the embedding models. boto3 for Bedrock is created
here and nowhere else; the store's clients (Qdrant, S3, DynamoDB) live in `duocthu.store`.
"""
