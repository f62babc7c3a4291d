// Live task events: the typed error where the runtime has no WebSocket, and real events where it has one.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { test } from "node:test";
import { EventsUnavailableError, eventsUrl } from "../dist/index.js";
import { client, KEY, uid, URL as STACK } from "./helpers.mjs";

const LIVE = fileURLToPath(new URL("./fixtures/events-live.mjs", import.meta.url));
const hasWebSocket = typeof globalThis.WebSocket === "function";

test("the events URL is the API's host and port with ws(s), the key and the user in the query", () => {
  assert.equal(eventsUrl("http://127.0.0.1:3000", "k 1", "alice"), "ws://127.0.0.1:3000/v1/events?user_id=alice&api_key=k+1");
  assert.equal(eventsUrl("https://x.example/prod/"), "wss://x.example/prod/v1/events");
});

test("without a global WebSocket, a for-await over events() ends with EventsUnavailableError to catch, and an add still waits by polling", async () => {
  // Node 20 has none; on a runtime that has one, take it away for this test.
  const had = Object.getOwnPropertyDescriptor(globalThis, "WebSocket");
  if (had) delete globalThis.WebSocket;
  try {
    const engram = client({ events: true });
    const events = engram.events({ user_id: "u" });
    assert.equal(typeof events[Symbol.asyncIterator], "function", "an async iterable, at once (not a Promise of one)");
    let caught;
    try {
      for await (const event of events) assert.fail(`no event expected: ${JSON.stringify(event)}`);
    } catch (error) {
      caught = error;
    }
    assert.ok(caught instanceof EventsUnavailableError, String(caught));
    assert.match(caught.message, /WebSocket/);
    await assert.rejects(Promise.resolve(engram.events({ user_id: "u" })), EventsUnavailableError); // awaited: the same
    const task = await engram.add("Drinks oat milk", { user_id: uid("poll"), infer: false });
    assert.equal(task.status, "completed");
  } finally {
    if (had) Object.defineProperty(globalThis, "WebSocket", had);
  }
});

test("the README's for-await over events() does not crash a Node without WebSocket: the error is caught", async () => {
  const script = `
    delete globalThis.WebSocket;
    const { Engram, EventsUnavailableError } = await import(${JSON.stringify(new URL("../dist/index.js", import.meta.url).href)});
    const engram = new Engram({ url: process.argv[1], apiKey: process.argv[2] });
    try {
      for await (const event of engram.events({ user_id: "u" })) console.log(event.type);
    } catch (error) {
      console.log(error instanceof EventsUnavailableError ? "caught EventsUnavailableError" : "caught " + error);
    }`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script, STACK, KEY], { timeout: 30_000 });
  assert.equal(stdout.trim(), "caught EventsUnavailableError");
});

const websocketFlag = hasWebSocket ? [] : process.allowedNodeEnvironmentFlags.has("--experimental-websocket") ? ["--experimental-websocket"] : null;

test("with a WebSocket, events() hears an add queued, processed and completed", { skip: !websocketFlag && "this Node has no WebSocket at all" }, async () => {
  const user = uid("live");
  const { stdout } = await promisify(execFile)(process.execPath, [...websocketFlag, "--no-warnings", LIVE, STACK, KEY, user], { timeout: 30_000 });
  const { task_id, heard, waited } = JSON.parse(stdout.trim().split("\n").at(-1));
  const mine = heard.filter((e) => e.task_id === task_id);
  assert.deepEqual(mine.map((e) => e.type).at(-1), "memory_extraction_completed");
  assert.ok(mine.some((e) => e.type === "memory_extraction_queued" || e.type === "memory_extraction_processing"), JSON.stringify(heard));
  assert.ok(heard.every((e) => e.user_id === user), "narrowed to the user");
  assert.equal(waited, "completed");
});
