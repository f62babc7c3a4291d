"""The domain: models, ports and errors. Imports no boto3, openai or opensearch."""
