// The Vercel AI SDK tools (engram-client/ai) driven by generateText with a stub model that calls them,
// against the real stack.
import assert from "node:assert/strict";
import { test } from "node:test";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { memoryTools } from "../dist/ai.js";
import { client, OTHER_KEY, uid } from "./helpers.mjs";

const engram = client();
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** A model that first calls `toolName` with `input`, then answers `text`. */
function scriptedModel(toolName, input, text = "done") {
  return new MockLanguageModelV3({
    doGenerate: [
      { content: [{ type: "tool-call", toolCallId: "call-1", toolName, input: JSON.stringify(input) }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] },
      { content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] },
    ],
  });
}

async function run(tools, toolName, input) {
  const result = await generateText({ model: scriptedModel(toolName, input), tools, prompt: "hello", stopWhen: stepCountIs(3) });
  const [call] = result.steps.flatMap((step) => step.toolResults);
  assert.equal(call?.toolName, toolName);
  return call.output;
}

test("the model saves, finds, corrects and forgets a memory through the tools", async () => {
  const user = uid("ai");
  const tools = memoryTools({ client: engram, userId: user, metadata: { via: "ai-sdk" } });
  assert.deepEqual(Object.keys(tools).sort(), ["forgetMemory", "saveMemory", "searchMemories", "updateMemory"]);

  const saved = await run(tools, "saveMemory", { content: "Lives in Berlin" });
  assert.equal(saved.saved[0].memory, "Lives in Berlin");
  const stored = (await engram.listPage({ user_id: user })).results;
  assert.deepEqual(stored.map((m) => [m.memory, m.metadata.via]), [["Lives in Berlin", "ai-sdk"]]);

  const found = await run(tools, "searchMemories", { query: "where does the user live", limit: 3 });
  assert.equal(found.memories[0].id, stored[0].id);

  const updated = await run(tools, "updateMemory", { memory_id: stored[0].id, new_content: "Lives in Munich" });
  assert.equal(updated.version, 2);
  assert.equal((await engram.get(stored[0].id)).memory, "Lives in Munich");

  const forgotten = await run(tools, "forgetMemory", { memory_id: stored[0].id });
  assert.equal(forgotten.forgotten, stored[0].id);
  assert.deepEqual((await engram.listPage({ user_id: user })).results, []);
});

test("a memory of another user or an unknown id is answered as not found to the model, and left alone", async () => {
  const owner = uid("owner");
  const task = await engram.add("Prefers aisle seats", { user_id: owner, infer: false });
  const memoryId = task.results[0].id;
  const intruder = memoryTools({ client: engram, userId: uid("intruder") });
  const refused = await run(intruder, "forgetMemory", { memory_id: memoryId });
  assert.equal(refused.status, 404);
  assert.match(refused.error, /not found/);
  assert.equal((await engram.get(memoryId)).memory, "Prefers aisle seats");
  const unknown = await run(intruder, "updateMemory", { memory_id: "no-such-memory", new_content: "x" });
  assert.equal(unknown.status, 404);
  if (OTHER_KEY) {
    const otherTenant = memoryTools({ client: client({ apiKey: OTHER_KEY }), userId: owner });
    assert.equal((await run(otherTenant, "searchMemories", { query: "seats" })).memories.length, 0);
  }
});
