// Every route the server's /openapi.json lists maps to an SDK method (routes.ts), and each method sends
// the request its table entry says: a new route without a client method fails here.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Engram, ROUTES } from "../dist/index.js";
import { client } from "./helpers.mjs";

const HTTP_METHODS = new Set(["get", "post", "put", "patch", "delete"]);

test("every (method, path) of /openapi.json has an SDK method, and the table names no route the API lacks", async () => {
  const spec = await client().openapi();
  const served = Object.entries(spec.paths).flatMap(([path, ops]) =>
    Object.keys(ops).filter((m) => HTTP_METHODS.has(m)).map((m) => `${m.toUpperCase()} ${path}`),
  );
  assert.ok(served.length >= 20, `the spec lists ${served.length} operations`);
  const covered = new Set(Object.values(ROUTES));
  assert.deepEqual(served.filter((route) => !covered.has(route)), [], "routes without an SDK method (add one and a ROUTES entry)");
  assert.deepEqual([...covered].filter((route) => !served.includes(route)), [], "ROUTES entries the API does not serve");
  for (const name of Object.keys(ROUTES)) assert.equal(typeof Engram.prototype[name], "function", `Engram.${name}`);
});

// One call of each method, with ids standing for the path parameters.
const SAMPLES = {
  health: (e) => e.health({ deep: true }),
  openapi: (e) => e.openapi(),
  add: (e) => e.add("hi", { user_id: "u", wait: false }),
  listPage: (e) => e.listPage({ user_id: "u" }),
  deleteAll: (e) => e.deleteAll("u", { wait: false }),
  importMemories: (e) => e.importMemories([{ memory: "m" }], { user_id: "u", wait: false }),
  search: (e) => e.search("q", { user_id: "u" }),
  get: (e) => e.get("ID"),
  update: (e) => e.update("ID", { text: "t" }),
  delete: (e) => e.delete("ID"),
  history: (e) => e.history("ID"),
  task: (e) => e.task("ID"),
  createAttachment: (e) => e.createAttachment({ name: "a", media_type: "text/plain", data: new Uint8Array([1]) }),
  attachment: (e) => e.attachment("ID"),
  graph: (e) => e.graph({ user_id: "u" }),
  entity: (e) => e.entity("ID"),
  deleteRelation: (e) => e.deleteRelation("ID"),
  users: (e) => e.users(),
  startMaintenance: (e) => e.startMaintenance({ actions: ["repair"] }),
  maintenance: (e) => e.maintenance("ID"),
  usage: (e) => e.usage(),
  queueMetrics: (e) => e.queueMetrics(),
  chatCompletions: (e) => e.chatCompletions({ user: "u", messages: [{ role: "user", content: "hi" }] }),
  getConfig: (e) => e.getConfig(),
  putConfig: (e) => e.putConfig({ exclude: [] }),
  testPolicy: (e) => e.testPolicy({ text: "I moved to Leeds" }),
};

test("each SDK method sends the request its ROUTES entry names", async () => {
  assert.deepEqual(Object.keys(SAMPLES).sort(), Object.keys(ROUTES).sort(), "a sample call for every route");
  for (const [name, route] of Object.entries(ROUTES)) {
    const sent = [];
    const recording = async (input, init) => {
      sent.push(`${init.method} ${new URL(input).pathname}`);
      return new Response(JSON.stringify({ task_id: "t", status: "queued", results: [], paths: {} }), { status: 200 });
    };
    await SAMPLES[name](new Engram({ url: "http://sdk.test", apiKey: "k", fetch: recording, events: false }));
    assert.deepEqual(sent, [route.replace(/\{[a-z_]+\}/, "ID")], name);
  }
});
