"""Amazon Bedrock AgentCore Memory's data plane, answered by Engram (docs/agentcore.md)."""
