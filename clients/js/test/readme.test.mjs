// The README's TypeScript quickstart and the longer example of docs/clients.md, each run as written (its user
// renamed so reruns start empty), with the package resolved by its own name as an installed copy would be.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { test } from "node:test";
import { KEY, uid, URL as STACK } from "./helpers.mjs";

const README = fileURLToPath(new URL("../../../README.md", import.meta.url));
const CLIENTS = fileURLToPath(new URL("../../../docs/clients.md", import.meta.url));

async function runsAsPromised(code) {
  const script = fileURLToPath(new URL(`./quickstart-${process.pid}.mjs`, import.meta.url));
  writeFileSync(script, code.replaceAll('"alice"', JSON.stringify(uid("readme"))));
  try {
    const env = { ...process.env, ENGRAM_URL: STACK, ENGRAM_API_KEY: KEY };
    const { stdout } = await promisify(execFile)(process.execPath, [script], { env, timeout: 30_000 });
    assert.match(stdout, /ADD Lives in Berlin/);
    assert.match(stdout, /^Lives in Berlin$/m);
    assert.match(stdout, /rejected: top_k/);
  } finally {
    rmSync(script, { force: true });
  }
}

test("the README quickstart runs against the stack and prints what it promises", async () => {
  const readme = readFileSync(README, "utf8");
  const section = readme.slice(readme.indexOf("### TypeScript"));
  const code = /`quickstart\.mjs`[^\n]*\n\n```js\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(code, "README has the quickstart block under ### TypeScript");
  assert.ok(code.trim().split("\n").length <= 10, "the README's quickstart stays within 10 lines");
  await runsAsPromised(code);
});

test("the TypeScript example of docs/clients.md runs against the stack and prints what it promises", async () => {
  const clients = readFileSync(CLIENTS, "utf8");
  const section = clients.slice(clients.indexOf("## TypeScript"));
  const code = /`example\.mjs`[^\n]*\n[^\n]*\n\n```js\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(code, "docs/clients.md has the example block under ## TypeScript");
  await runsAsPromised(code);
});
