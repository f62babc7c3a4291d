"""What each API operation does, in the OpenAPI document: its tag, summary and description, keyed by
the name of the function that serves it (`@app.get(path, **OPERATIONS["name"])`). Kept here so the
handlers stay short glue; `operation` also says whether the x-api-key is needed (by default it is)."""

from __future__ import annotations

from typing import Any

from engram.http.openapi import operation

OPERATIONS: dict[str, dict[str, Any]] = {
    "openapi": operation(
        "operations",
        "Get this OpenAPI document",
        "The API's OpenAPI document, its server the URL it was fetched under (the stage on AWS). No key needed.",
        key=False,
    ),
    "add_memories": operation(
        "memories",
        "Add memories from a conversation",
        "Stores the messages and queues them for the user (202 with a task id): facts are then extracted, "
        "reconciled with what is known (add, update, supersede, forget) and stored. `infer: false` stores the "
        "messages as they are; `attachments` attach files; `expires_at` makes the memories expire. Follow the "
        "task with GET /v1/tasks/{task_id}.",
    ),
    "import_memories": operation(
        "memories",
        "Import exported memories as they were",
        "Writes memories from `engram export` (up to 500 per request) without extraction, as a task (202 with a "
        "task id) in the user's queue: every field as exported, idempotent per memory, so importing the same "
        "file again adds nothing; with the export's graph relations (up to 1000, `relations`), resolved in the "
        "target user. Follow the task's counts (added, skipped, relations_added, relations_skipped) with "
        "GET /v1/tasks/{task_id}.",
    ),
    "chat_completions": operation(
        "chat",
        "Chat completion with the user's memories",
        "OpenAI's chat completions in front of the configured LLM: the user (`user`, or the x-engram-user-id "
        "header) has their memories most relevant to their last message added to the system prompt, each "
        "with the date it was said; the model's answer comes back unchanged, and the exchange is queued as "
        "an add (its task id in the x-engram-task-id header). `stream: true` needs the local stack: API "
        "Gateway's REST APIs cannot stream a Lambda's answer. 503 when no LLM is configured.",
    ),
    "get_config": operation(
        "config",
        "Get the tenant's memory policy",
        "The tenant's instructions (free text every LLM prompt includes), include and exclude (memory banks or "
        "topics, decided for every clause by meaning: only what is included is kept, what is excluded is stored "
        "nowhere), examples of each free topic, and custom prompts.",
    ),
    "test_policy": operation(
        "config",
        "Try a sentence against the memory policy",
        "Stores nothing. Answers what the include/exclude screen would do with each clause of `text` (up to "
        "4,000 characters): `kept`, `excluded` (with the entry) or `not included`, the bank or topic the clause "
        "is nearest to and its score, and each include/exclude entry's score, its margin to the clause's "
        "nearest bank and whether the screen reads the clause as about it. The policy is the tenant's stored "
        "one (with `user_id`, plus what that user asked not to be remembered), or `policy` (include, exclude, "
        "examples) to try instead.",
    ),
    "put_config": operation(
        "config",
        "Set the tenant's memory policy",
        "Replaces the tenant's configuration whole: instructions (up to 4,000 characters), include and exclude "
        "(up to 50 entries of up to 100 characters), prompts.extraction, prompts.reconcile and prompts.graph "
        "(up to 20,000 characters each; a prompt missing what its step's answer needs is a 422 naming it). "
        "An add's own instructions, include and exclude override it for that add. Applies to adds within 30 s. "
        "The answer's `warnings` name what this deployment cannot honour (instructions without an LLM).",
    ),
    "get_task": operation(
        "tasks",
        "Get a task's status and results",
        "Where an add or a delete-all is (queued, processing, completed, failed, waiting), the memories it "
        "added, updated or deleted, counts and the LLM usage it cost.",
    ),
    "search": operation(
        "search",
        "Search a user's memories",
        "The user's memories most relevant to the query, best first with their scores (vector and keyword "
        "ranking). Narrow by agent, run, bank or metadata; `as_of` ranks the versions current at that time; "
        "with graph memory on, the relations around the query's entities come too.",
    ),
    "list_memories": operation(
        "memories",
        "List a user's memories",
        "A page of the user's current memories (next_cursor for the next), filtered by agent, run, bank, "
        "protection, fact key or attachment; `as_of` lists the versions current at that time; `versions=all` "
        "every stored version, current and closed (what `engram export` writes).",
    ),
    "delete_all": operation(
        "memories",
        "Forget all of a user's memories",
        "Queues a task (202) that closes every memory of the user; follow it with GET /v1/tasks/{task_id}.",
    ),
    "get_memory": operation(
        "memories",
        "Get one memory",
        "The memory's current version; `include=source` adds the messages it was extracted from.",
    ),
    "patch_memory": operation(
        "memories",
        "Correct a memory",
        "Changes its text, metadata, importance, protection, bank or expiry as a new version; the old one "
        "stays in its history.",
    ),
    "delete_memory": operation(
        "memories", "Forget one memory", "Closes the memory: it leaves search and lists, not its history."
    ),
    "memory_history": operation(
        "memories",
        "Get a memory's history",
        "Every change to the memory, oldest first: the event, old and new text, who made it, the task, and "
        "a note saying why (pruned, summarised, duplicate, expired).",
    ),
    "create_attachment": operation(
        "attachments",
        "Create an attachment",
        "Registers a file: content inline (base64, up to 5 MiB) or, without it, a presigned URL to PUT it "
        "to. Name its id in an add's `attachments` to attach it to the memories the add makes.",
    ),
    "get_attachment": operation(
        "attachments",
        "Get an attachment",
        "Its metadata, a presigned download URL, and a page of the ids of the memories holding it.",
    ),
    "health": operation(
        "operations",
        "Check the API is up",
        "Answers without a key. `deep=true` checks every dependency (tables, queue, storage, index) and needs "
        "the `x-api-key` header: 200, or 503 naming those down.",
        key=False,
    ),
    "extraction_queue_metrics": operation(
        "operations",
        "Get the extraction queue's figures",
        "The tenant's adds pending and processing now, completed and failed over the last hour or day, "
        "their mean duration and the oldest pending add's age.",
    ),
    "usage": operation(
        "operations",
        "Get usage per day",
        "The tenant's LLM calls and tokens, adds, failed adds, searches and memories stored per UTC day, "
        "with totals, between `from` and `to`.",
    ),
    "start_maintenance": operation(
        "maintenance",
        "Start a maintenance run",
        "Starts the maintenance workflow (202 with its execution id) for the tenant or one user: repair "
        "drift between the tables and the index, expire, dedupe, summarise, prune.",
    ),
    "get_maintenance": operation(
        "maintenance",
        "Get a maintenance run",
        "The run's status, actions, start and stop times, error, and its report once it has finished.",
    ),
    "list_users": operation("memories", "List the tenant's users", "A page of the ids of the users who have memories."),
    "get_graph": operation(
        "graph",
        "Get a user's entity graph",
        "A page of the user's entities and of the relations between them (a cursor for each); `as_of` gives "
        "the relations that held at that time, `relations=all` every relation, closed ones too (what `engram "
        "export` writes). 404 when graph memory is off.",
    ),
    "get_entity": operation("graph", "Get an entity", "The entity, its aliases, and the relations it is part of."),
    "delete_relation": operation(
        "graph", "Close a relation", "Ends the relation now (valid_to); it stays in the graph's history for as_of."
    ),
}
