"""AWS services other than DynamoDB: clients and their retries, SQS, S3, Step Functions, API Gateway, EMF metrics."""
