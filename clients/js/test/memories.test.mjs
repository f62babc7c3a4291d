// Memories, search, import and tasks through the SDK against the real local stack.
import assert from "node:assert/strict";
import { test } from "node:test";
import { NotFoundError } from "../dist/index.js";
import { client, OTHER_KEY, uid } from "./helpers.mjs";

const engram = client();

test("add waits for extraction; created_at per message and for the whole add set when it was said", async () => {
  const user = uid("said");
  const task = await engram.add(
    [
      { role: "user", content: "Went to a pottery class", created_at: new Date("2023-05-08T13:56:00Z") },
      { role: "user", content: "Bought a red bicycle" },
    ],
    { user_id: user, infer: false, created_at: "2021-02-03T04:05:06Z" },
  );
  assert.equal(task.status, "completed");
  assert.equal(task.results.filter((r) => r.event === "ADD").length, 2);
  const byText = Object.fromEntries((await engram.listPage({ user_id: user })).results.map((m) => [m.memory, m]));
  assert.equal(byText["Went to a pottery class"].valid_from, "2023-05-08T13:56:00Z"); // its own time wins
  assert.equal(byText["Bought a red bicycle"].valid_from, "2021-02-03T04:05:06Z"); // the add's time

  const queued = await engram.add("Plays the cello", { user_id: user, infer: false, wait: false });
  assert.ok(["queued", "processing", "completed"].includes(queued.status));
  const done = await engram.waitForTask(queued.task_id, { timeoutMs: 30_000 });
  assert.equal(done.status, "completed");
  assert.equal(done.results[0].memory, "Plays the cello");
});

test("list walks every page; get includes the source messages; patch, history, delete", async () => {
  const user = uid("pages");
  const texts = ["Likes green tea", "Owns a kayak", "Reads Norwegian novels", "Collects vinyl records", "Grows tomatoes"];
  await engram.add(texts.map((content) => ({ role: "user", content })), { user_id: user, infer: false, deduplicate: false });
  const first = await engram.listPage({ user_id: user, limit: 2 });
  assert.equal(first.results.length, 2);
  assert.ok(first.next_cursor, "a first page of 2 out of 5 names the next");
  const seen = [];
  for await (const memory of engram.list({ user_id: user, limit: 2 })) seen.push(memory.memory);
  assert.deepEqual(seen.sort(), [...texts].sort());

  const kayak = (await engram.listPage({ user_id: user })).results.find((m) => m.memory === "Owns a kayak");
  const withSource = await engram.get(kayak.id, { includeSource: true });
  assert.deepEqual(withSource.source_messages.map((m) => m.content), ["Owns a kayak"]); // the message it came from
  assert.equal((await engram.get(kayak.id)).source_messages ?? null, null); // only when asked

  const updated = await engram.update(kayak.id, { text: "Owns two kayaks", importance: 0.9, is_protected: true });
  assert.equal(updated.memory, "Owns two kayaks");
  assert.equal(updated.version, 2);
  assert.equal(updated.is_protected, true);
  const history = await engram.history(kayak.id);
  assert.deepEqual(history.results.map((h) => [h.event, h.new_memory]), [["ADD", "Owns a kayak"], ["UPDATE", "Owns two kayaks"]]);

  await engram.delete(kayak.id);
  await assert.rejects(engram.get(kayak.id), NotFoundError);
  assert.equal((await engram.listPage({ user_id: user })).results.length, 4);

  const cleared = await engram.deleteAll(user);
  assert.equal(cleared.deleted, 4);
  assert.equal(cleared.status, "completed");
  assert.deepEqual((await engram.listPage({ user_id: user })).results, []);
});

test("search: time_range keeps what was said within it, now resolves relative words, as_of sees old versions", async () => {
  const user = uid("search");
  await engram.add([{ role: "user", content: "Went hiking in the Alps", created_at: "2022-07-10T10:00:00Z" }], { user_id: user, infer: false });
  await engram.add([{ role: "user", content: "Went hiking in Patagonia", created_at: "2024-03-02T10:00:00Z" }], { user_id: user, infer: false });

  const all = await engram.search("hiking trip", { user_id: user });
  assert.equal(all.results.length, 2);
  const in2022 = await engram.search("hiking trip", {
    user_id: user,
    time_range: { from: new Date("2022-01-01T00:00:00Z"), to: "2023-01-01T00:00:00Z" },
  });
  assert.deepEqual(in2022.results.map((m) => m.memory), ["Went hiking in the Alps"]);
  const lastWeek = await engram.search("where did I go hiking last week", { user_id: user, now: new Date("2024-03-06T12:00:00Z") });
  assert.equal(lastWeek.results[0].memory, "Went hiking in Patagonia");

  const alps = all.results.find((m) => m.memory.includes("Alps"));
  const before = new Date();
  await new Promise((done) => setTimeout(done, 20));
  await engram.update(alps.id, { text: "Went hiking in the Dolomites", memory_bank: "Interests" });
  const then = await engram.search("hiking", { user_id: user, as_of: before });
  assert.ok(then.results.some((m) => m.memory === "Went hiking in the Alps"), JSON.stringify(then.results));
  const filtered = await engram.search("hiking", { user_id: user, filters: { memory_bank: "Interests" } });
  assert.deepEqual(filtered.results.map((m) => m.memory), ["Went hiking in the Dolomites"]);
});

test("import writes exported memories as they were, and a second import adds nothing", async () => {
  const [from, to] = [uid("export"), uid("import")];
  await engram.add(["Speaks Portuguese", "Allergic to peanuts"].map((content) => ({ role: "user", content })), {
    user_id: from,
    infer: false,
    metadata: { origin: "js" },
  });
  const exported = [];
  for await (const memory of engram.list({ user_id: from })) exported.push(memory);
  const task = await engram.importMemories(exported, { user_id: to });
  assert.equal(task.status, "completed");
  assert.equal(task.counts.added, 2);
  const copied = (await engram.listPage({ user_id: to })).results;
  assert.deepEqual(copied.map((m) => m.memory).sort(), ["Allergic to peanuts", "Speaks Portuguese"]);
  assert.ok(copied.every((m) => m.metadata.origin === "js"));
  const again = await engram.importMemories(exported, { user_id: to });
  assert.equal(again.counts.skipped, 2);
  assert.equal((await engram.listPage({ user_id: to })).results.length, 2);
});

test("another tenant's key sees none of it", { skip: !OTHER_KEY && "no second tenant key given" }, async () => {
  const user = uid("tenant");
  const task = await engram.add("Has a cat named Miso", { user_id: user, infer: false });
  const other = client({ apiKey: OTHER_KEY });
  await assert.rejects(other.get(task.results[0].id), NotFoundError);
  await assert.rejects(other.task(task.task_id), NotFoundError);
  assert.deepEqual((await other.listPage({ user_id: user })).results, []);
  await assert.rejects(other.delete(task.results[0].id), NotFoundError);
  assert.equal((await engram.get(task.results[0].id)).memory, "Has a cat named Miso");
});
