// Memory tools for the Vercel AI SDK (`ai` 5 and later: `tool({description, inputSchema, execute})`):
// `generateText({ model, tools: memoryTools({ client, userId }), ... })`.
//
// The user is never a tool argument: the host passes `userId`, and update/forget refuse a memory of another
// user, so a model cannot reach past the conversation it serves. A request the API rejects (4xx) is answered
// to the model as `{error}` so it can correct itself; a server or connection failure is thrown to the host.

import { jsonSchema, tool } from "ai";
import type { Engram } from "./client.js";
import { APIError, NotFoundError } from "./errors.js";

export interface MemoryToolsOptions {
  client: Engram;
  /** Whose memories the tools read and write. */
  userId: string;
  /** Stored on every memory the model saves (e.g. {source: "chat"}). */
  metadata?: Record<string, unknown>;
}

type ToolError = { error: string; status?: number };

async function answer<R>(name: string, run: () => Promise<R>): Promise<R | ToolError> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof APIError && error.status < 500) return { error: `${name}: ${error.detail}`, status: error.status };
    throw error;
  }
}

const memoryId = { type: "string", description: "id of the memory, from searchMemories" } as const;

export function memoryTools({ client, userId, metadata }: MemoryToolsOptions) {
  // The memory, if it is this user's (another user's answers as not found, like another tenant's).
  async function own(id: string): Promise<string> {
    const memory = await client.get(id);
    if (memory.user_id !== userId) throw new NotFoundError(404, `memory '${id}' not found`);
    return id;
  }

  return {
    searchMemories: tool({
      description:
        "Search long-term memory for facts about the user relevant to a query. Call it before answering " +
        "anything that may depend on what the user told you before.",
      inputSchema: jsonSchema<{ query: string; limit?: number }>({
        type: "object",
        properties: {
          query: { type: "string", minLength: 1, description: "what to look for, in plain words" },
          limit: { type: "integer", minimum: 1, maximum: 20, description: "at most this many (5)" },
        },
        required: ["query"],
        additionalProperties: false,
      }),
      execute: ({ query, limit }) =>
        answer("searchMemories", async () => {
          const found = await client.search(query, { user_id: userId, top_k: limit ?? 5 });
          return { memories: found.results.map((m) => ({ id: m.id, memory: m.memory, score: m.score })) };
        }),
    }),
    saveMemory: tool({
      description:
        "Store one durable fact about the user (a preference, a plan, a detail of their life), written as a " +
        "short self-contained sentence. Near-duplicates of what is stored are skipped.",
      inputSchema: jsonSchema<{ content: string }>({
        type: "object",
        properties: { content: { type: "string", minLength: 1, description: "the fact, e.g. 'Lives in Berlin'" } },
        required: ["content"],
        additionalProperties: false,
      }),
      execute: ({ content }) =>
        answer("saveMemory", async () => {
          const task = await client.add(content, { user_id: userId, infer: false, metadata });
          const saved = task.results.filter((r) => r.event !== "NONE").map((r) => ({ id: r.id, memory: r.memory }));
          return { saved, skipped_as_duplicate: task.counts.NONE ?? 0 };
        }),
    }),
    updateMemory: tool({
      description:
        "Correct a stored fact that changed or was wrong; give its id (from searchMemories) and the full new " +
        "text. The old version stays in the memory's history.",
      inputSchema: jsonSchema<{ memory_id: string; new_content: string }>({
        type: "object",
        properties: { memory_id: memoryId, new_content: { type: "string", minLength: 1, description: "the corrected fact, complete" } },
        required: ["memory_id", "new_content"],
        additionalProperties: false,
      }),
      execute: ({ memory_id, new_content }) =>
        answer("updateMemory", async () => {
          const memory = await client.update(await own(memory_id), { text: new_content });
          return { id: memory.id, memory: memory.memory, version: memory.version };
        }),
    }),
    forgetMemory: tool({
      description: "Forget a stored fact the user asked you to forget or that is no longer true.",
      inputSchema: jsonSchema<{ memory_id: string }>({
        type: "object",
        properties: { memory_id: memoryId },
        required: ["memory_id"],
        additionalProperties: false,
      }),
      execute: ({ memory_id }) =>
        answer("forgetMemory", async () => {
          await client.delete(await own(memory_id));
          return { forgotten: memory_id };
        }),
    }),
  };
}
