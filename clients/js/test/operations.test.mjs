// Attachments, graph, users, maintenance, usage, queue figures and health through the SDK, real stack.
import assert from "node:assert/strict";
import { test } from "node:test";
import { INLINE_ATTACHMENT_BYTES, NotFoundError } from "../dist/index.js";
import { client, uid } from "./helpers.mjs";

const engram = client();

test("attachments: inline and through the presigned URL, read back byte for byte with the memories holding them", async () => {
  const small = new TextEncoder().encode("%PDF lease of the Berlin flat");
  const created = await engram.createAttachment({ name: "lease.pdf", media_type: "application/pdf", data: small, description: "the lease" });
  assert.equal(created.stored, true);
  const user = uid("attach");
  const task = await engram.add("Signed the lease of the Berlin flat", {
    user_id: user,
    infer: false,
    attachments: [{ attachment_id: created.attachment_id }],
  });
  const found = await engram.attachment(created.attachment_id);
  assert.equal(found.name, "lease.pdf");
  assert.equal(found.description, "the lease");
  assert.deepEqual(found.memory_ids, [task.results[0].id]);
  assert.deepEqual(await engram.downloadAttachment(created.attachment_id), small);

  const large = new Uint8Array(INLINE_ATTACHMENT_BYTES + 1024).map((_, i) => i % 251);
  const uploaded = await engram.createAttachment({ name: "scan.bin", media_type: "application/octet-stream", data: large });
  assert.ok(uploaded.upload_url, "over 5 MiB goes to the presigned URL");
  assert.deepEqual(await engram.downloadAttachment(uploaded.attachment_id), large);
  await assert.rejects(engram.attachment("no-such-attachment"), NotFoundError);
});

test("graph: entities and relations of an add, one entity's history, a relation closed", async () => {
  const user = uid("graph");
  await engram.add("My sister Maren lives in Oslo. I work at Brightwave.", { user_id: user });
  const graph = await engram.graph({ user_id: user });
  const livesIn = graph.relations.find((r) => r.source === "Maren" && r.relation === "lives_in");
  assert.equal(livesIn?.destination, "Oslo", JSON.stringify(graph.relations));
  const maren = await engram.entity(livesIn.source_entity_id);
  assert.equal(maren.name, "Maren");
  assert.ok(maren.relations.some((r) => r.id === livesIn.id));
  const closed = await engram.deleteRelation(livesIn.id);
  assert.equal(closed.id, livesIn.id);
  assert.ok(closed.valid_to);
  const after = await engram.graph({ user_id: user });
  assert.ok(!after.relations.some((r) => r.id === livesIn.id), "a closed relation is no longer current");
  await assert.rejects(engram.entity("no-such-entity"), NotFoundError);
});

test("users, maintenance, usage, queue figures and deep health", async () => {
  const user = uid("ops");
  await engram.add("Runs marathons", { user_id: user, infer: false });
  const users = [];
  for await (const found of engram.allUsers(2)) users.push(found.user_id);
  assert.ok(users.includes(user), "every page of users, 2 at a time, includes the new one");
  assert.equal(new Set(users).size, users.length);

  const started = await engram.startMaintenance({ actions: ["repair", "expire"], user_id: user });
  assert.ok(started.execution_id);
  let run = await engram.maintenance(started.execution_id);
  for (let i = 0; i < 100 && run.status === "RUNNING"; i++) {
    await new Promise((done) => setTimeout(done, 100));
    run = await engram.maintenance(started.execution_id);
  }
  assert.equal(run.status, "SUCCEEDED", JSON.stringify(run));
  assert.deepEqual(run.actions, ["repair", "expire"]);
  assert.equal(run.user_id, user);

  const today = new Date().toISOString().slice(0, 10);
  const usage = await engram.usage({ from: today, to: today });
  assert.equal(usage.days.length, 1);
  assert.ok(usage.totals.adds >= 1);
  const queue = await engram.queueMetrics({ window: "hour" });
  assert.ok(queue.completed >= 1);
  assert.equal(typeof queue.pending, "number");

  assert.deepEqual(await engram.health(), { status: "ok" });
  const deep = await engram.health({ deep: true });
  assert.equal(deep.status, "ok");
  assert.deepEqual(deep.down, []);
  assert.ok(deep.checks.dynamodb.ok && deep.checks.search_index.ok);
});
