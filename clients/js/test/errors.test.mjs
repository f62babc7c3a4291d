// Typed errors from the real stack, and retries / backoff / Retry-After against a scripted local server.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  AuthenticationError,
  BadRequestError,
  EngramConnectionError,
  EngramTimeoutError,
  Engram,
  NotFoundError,
  RateLimitError,
  ServerError,
  TaskFailedError,
} from "../dist/index.js";
import { client, KEY, uid, URL } from "./helpers.mjs";

const engram = client();

test("a 422 names the field at fault, every field when there are several", async () => {
  const bad = engram.add([{ role: "user", content: "hi", created_at: "yesterday" }], { user_id: uid("bad") });
  await assert.rejects(bad, (error) => {
    assert.ok(error instanceof BadRequestError);
    assert.equal(error.status, 422);
    assert.equal(error.field, "messages.0.created_at");
    return true;
  });
  await assert.rejects(engram.search("x", { user_id: "", top_k: 1000 }), (error) => {
    assert.ok(error instanceof BadRequestError);
    assert.deepEqual(error.fields.map((f) => f.field).sort(), ["top_k", "user_id"]);
    assert.match(error.message, /top_k/);
    return true;
  });
  await assert.rejects(engram.usage({ from: "2026-02-01", to: "2026-01-01" }), (error) => {
    assert.ok(error instanceof BadRequestError);
    assert.equal(error.status, 400); // a domain error: {error, message, field}
    assert.equal(error.field, "from");
    return true;
  });
});

test("unknown ids answer NotFoundError; a wrong or missing key AuthenticationError", async () => {
  await assert.rejects(engram.get("no-such-memory"), (e) => e instanceof NotFoundError && e.status === 404);
  await assert.rejects(engram.task("no-such-task"), NotFoundError);
  await assert.rejects(engram.maintenance("no-such-run"), NotFoundError);
  const stranger = new Engram({ url: URL, apiKey: "not-a-key", events: false });
  await assert.rejects(stranger.listPage({ user_id: "u" }), (e) => e instanceof AuthenticationError && [401, 403].includes(e.status));
  const keyless = new Engram({ url: URL, apiKey: "", events: false });
  const saved = process.env.ENGRAM_API_KEY;
  delete process.env.ENGRAM_API_KEY;
  process.env.ENGRAM_CONFIG = join(mkdtempSync(join(tmpdir(), "engram-cfg-")), "missing.toml");
  try {
    await assert.rejects(keyless.users(), AuthenticationError);
  } finally {
    if (saved !== undefined) process.env.ENGRAM_API_KEY = saved;
    delete process.env.ENGRAM_CONFIG;
  }
});

test("defaults come from ENGRAM_URL / ENGRAM_API_KEY, then the config file, as in the Python SDK", async () => {
  const saved = { url: process.env.ENGRAM_URL, key: process.env.ENGRAM_API_KEY, config: process.env.ENGRAM_CONFIG };
  try {
    process.env.ENGRAM_URL = URL + "/";
    process.env.ENGRAM_API_KEY = KEY;
    const fromEnv = new Engram({ events: false });
    assert.deepEqual(await fromEnv.resolved(), { url: URL, apiKey: KEY });
    assert.ok(Array.isArray((await fromEnv.users()).results));

    delete process.env.ENGRAM_URL;
    delete process.env.ENGRAM_API_KEY;
    const folder = mkdtempSync(join(tmpdir(), "engram-cfg-"));
    process.env.ENGRAM_CONFIG = join(folder, "config.toml");
    writeFileSync(process.env.ENGRAM_CONFIG, `# mine\nurl = "${URL}"\napi_key = '${KEY}'\n`);
    assert.deepEqual(await new Engram().resolved(), { url: URL, apiKey: KEY });
    process.env.ENGRAM_CONFIG = join(folder, "none.toml");
    assert.deepEqual(await new Engram().resolved(), { url: "http://127.0.0.1:3000", apiKey: undefined });
    assert.equal((await new Engram({ url: "http://h:1", apiKey: "k" }).resolved()).url, "http://h:1");
  } finally {
    for (const [name, value] of [["ENGRAM_URL", saved.url], ["ENGRAM_API_KEY", saved.key], ["ENGRAM_CONFIG", saved.config]]) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
});

/** A local server answering each request with the next scripted [status, headers, body]; records arrivals. */
async function scripted(answers) {
  const arrivals = [];
  const server = createServer((req, res) => {
    arrivals.push({ method: req.method, url: req.url, at: Date.now(), key: req.headers["x-api-key"] });
    const [status, headers, body] = answers[Math.min(arrivals.length - 1, answers.length - 1)];
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  const url = `http://127.0.0.1:${server.address().port}`;
  return { url, arrivals, close: () => new Promise((done) => server.close(done)) };
}

const fast = { attempts: 4, baseDelay: 0.01, maxDelay: 2 };

test("429 is retried after Retry-After seconds, then succeeds", async () => {
  const server = await scripted([[429, { "retry-after": "1" }, { message: "slow down" }], [200, {}, { results: [], next_cursor: null }]]);
  try {
    const sdk = new Engram({ url: server.url, apiKey: "k", retry: fast });
    assert.deepEqual((await sdk.users()).results, []);
    assert.equal(server.arrivals.length, 2);
    const waited = server.arrivals[1].at - server.arrivals[0].at;
    assert.ok(waited >= 950, `waited ${waited} ms, Retry-After said 1 s`);
    assert.equal(server.arrivals[0].key, "k");
  } finally {
    await server.close();
  }
});

test("still throttled after every try: RateLimitError with the server's hint", async () => {
  const server = await scripted([[429, { "retry-after": "0" }, { message: "Too Many Requests" }]]);
  try {
    const sdk = new Engram({ url: server.url, apiKey: "k", retry: fast });
    await assert.rejects(sdk.search("q", { user_id: "u" }), (e) => e instanceof RateLimitError && e.retryAfter === 0);
    assert.equal(server.arrivals.length, 4); // a POST too: a 429 was not processed
  } finally {
    await server.close();
  }
});

test("5xx: 503 is retried for every method; a 500 only for reads, never for an add", async () => {
  const server = await scripted([[503, {}, { message: "busy" }], [502, {}, {}], [200, {}, { task_id: "t1", status: "queued" }]]);
  try {
    const sdk = new Engram({ url: server.url, apiKey: "k", retry: fast });
    assert.equal((await sdk.add("hi", { user_id: "u", wait: false })).task_id, "t1");
    assert.equal(server.arrivals.length, 3);
  } finally {
    await server.close();
  }
  const failing = await scripted([[500, {}, { error: "InternalError", message: "internal error" }]]);
  try {
    const sdk = new Engram({ url: failing.url, apiKey: "k", retry: fast });
    await assert.rejects(sdk.add("hi", { user_id: "u", wait: false }), (e) => e instanceof ServerError && e.status === 500);
    assert.equal(failing.arrivals.length, 1, "an add is never sent twice after a 500");
    await assert.rejects(sdk.get("m1"), ServerError);
    assert.equal(failing.arrivals.length, 1 + 4, "a read is retried");
  } finally {
    await failing.close();
  }
});

test("a refused connection is retried, then EngramConnectionError", async () => {
  const server = await scripted([[200, {}, {}]]);
  await server.close(); // nothing listens on this port now
  let tries = 0;
  const counting = (input, init) => {
    tries++;
    return fetch(input, init);
  };
  const sdk = new Engram({ url: server.url, apiKey: "k", retry: fast, fetch: counting });
  await assert.rejects(sdk.add("hi", { user_id: "u", wait: false }), EngramConnectionError);
  assert.equal(tries, 4, "refused before sending: safe to retry even a POST");
});

test("waitForTask polls until done, throws TaskFailedError on failure and EngramTimeoutError past its timeout", async () => {
  const task = (status) => [200, {}, { task_id: "t", status, results: [], counts: {}, usage: {}, attempts: 1, error: status === "failed" ? "boom" : null }];
  const server = await scripted([task("queued"), task("processing"), task("completed")]);
  try {
    const sdk = new Engram({ url: server.url, apiKey: "k" });
    assert.equal((await sdk.waitForTask("t")).status, "completed");
    assert.equal(server.arrivals.length, 3);
  } finally {
    await server.close();
  }
  const failed = await scripted([task("failed")]);
  try {
    const sdk = new Engram({ url: failed.url, apiKey: "k" });
    await assert.rejects(sdk.waitForTask("t"), (e) => e instanceof TaskFailedError && e.task.error === "boom");
    assert.equal((await sdk.waitForTask("t", { raiseOnFailure: false })).status, "failed");
  } finally {
    await failed.close();
  }
  const stuck = await scripted([task("processing")]);
  try {
    const sdk = new Engram({ url: stuck.url, apiKey: "k" });
    const began = Date.now();
    await assert.rejects(sdk.waitForTask("t", { timeoutMs: 600 }), EngramTimeoutError);
    assert.ok(Date.now() - began < 2000);
    assert.ok(stuck.arrivals.length >= 3, "polled more than once before giving up");
  } finally {
    await stuck.close();
  }
});

test("a 401 or 403 names ENGRAM_API_KEY, and an unreachable server the URL tried and ENGRAM_URL", async () => {
  const config = join(mkdtempSync(join(tmpdir(), "engram-cfg-")), "none.toml");
  const saved = { key: process.env.ENGRAM_API_KEY, config: process.env.ENGRAM_CONFIG };
  delete process.env.ENGRAM_API_KEY;
  process.env.ENGRAM_CONFIG = config; // no config file: nothing gives a key
  try {
    const keyless = new Engram({ url: URL, events: false });
    await assert.rejects(keyless.listPage({ user_id: "u" }), (error) => {
      assert.ok(error instanceof AuthenticationError && error.status === 401, String(error));
      assert.match(error.message, /ENGRAM_API_KEY/);
      return true;
    });
  } finally {
    if (saved.key !== undefined) process.env.ENGRAM_API_KEY = saved.key;
    if (saved.config !== undefined) process.env.ENGRAM_CONFIG = saved.config;
    else delete process.env.ENGRAM_CONFIG;
  }
  const wrong = new Engram({ url: URL, apiKey: "not-a-key", events: false });
  await assert.rejects(wrong.listPage({ user_id: "u" }), (error) => {
    assert.ok(error instanceof AuthenticationError && error.status === 403, String(error));
    assert.match(error.message, /ENGRAM_API_KEY/);
    return true;
  });
  const server = createServer();
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  const nowhere = `http://127.0.0.1:${server.address().port}`;
  await new Promise((done) => server.close(done)); // nothing listens there now
  const gone = new Engram({ url: nowhere, apiKey: KEY, events: false, retry: { attempts: 1 } });
  await assert.rejects(gone.get("m1"), (error) => {
    assert.ok(error instanceof EngramConnectionError, String(error));
    assert.ok(error.message.includes(`${nowhere}/v1/memories/m1`), error.message);
    assert.match(error.message, /ENGRAM_URL/);
    return true;
  });
});

test("an answer marked x-should-retry: false is not retried", async () => {
  let seen = 0;
  const server = createServer((request, response) => {
    seen += 1;
    response.writeHead(503, { "content-type": "application/json", "x-should-retry": "false" });
    response.end(JSON.stringify({ error: "ConfigurationError", message: "needs ENGRAM_OPENAI_API_KEY" }));
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  try {
    const engram = new Engram({ url: `http://127.0.0.1:${server.address().port}`, apiKey: "k", events: false });
    await assert.rejects(engram.get("m1"), /ENGRAM_OPENAI_API_KEY/);
    assert.equal(seen, 1);
  } finally {
    server.close();
  }
});
