"""The stores on DynamoDB tables: memories, graph, tasks, keys, counters and their shared helpers."""
