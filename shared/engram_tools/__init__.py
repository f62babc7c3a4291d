"""Tools beside the runtime package, never installed into the Lambda layer: the local stack and the operator CLI."""
