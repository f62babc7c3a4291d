// `npm test`: runs test/*.test.mjs with node's test runner against a real local stack. With
// ENGRAM_TEST_URL and ENGRAM_TEST_KEY (and ENGRAM_TEST_OTHER_KEY, a second tenant) set, against that
// stack (tests/e2e/test_client_js.py passes its own); otherwise this starts `python -m engram_tools.local` on free
// ports with a fresh data folder, as tests/e2e/stack_process.py does, and stops it after.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "..", "..", "..");
const START_TIMEOUT_MS = 120_000; // the first start on a busy 2-core machine loads the ONNX model

function freePort() {
  return new Promise((done, fail) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
    server.on("error", fail);
  });
}

async function startStack() {
  const python = process.env.ENGRAM_PYTHON || [join(ROOT, ".venv", "bin", "python")].find(existsSync) || "python3";
  const [port, motoPort] = [await freePort(), await freePort()];
  const dataRoot = mkdtempSync(join(tmpdir(), "engram-js-"));
  const logPath = join(dataRoot, "stack.log");
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("ENGRAM_")));
  Object.assign(env, {
    ENGRAM_LOCAL_API_KEYS: "acme:key-js-acme,globex:key-js-globex",
    ENGRAM_MOTO_PORT: String(motoPort),
    PYTHONUNBUFFERED: "1",
  });
  const log = openSync(logPath, "a");
  const args = ["-m", "engram_tools.local", "--port", String(port), "--data-dir", join(dataRoot, "data")];
  const child = spawn(python, args, { cwd: ROOT, env, stdio: ["ignore", log, log] });
  let exited = null;
  child.on("exit", (code) => (exited = code ?? -1));
  const url = `http://127.0.0.1:${port}`;
  const tail = () => readFileSync(logPath, "utf8").split("\n").slice(-40).join("\n");
  const began = Date.now();
  while (Date.now() - began < START_TIMEOUT_MS) {
    if (exited !== null) throw new Error(`the local stack exited with ${exited}:\n${tail()}`);
    try {
      if ((await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) })).ok) {
        console.log(`# local stack on ${url} answered /health in ${((Date.now() - began) / 1000).toFixed(1)} s`);
        const stop = async () => {
          if (exited === null) {
            const gone = new Promise((done) => child.once("exit", done));
            child.kill("SIGTERM");
            await Promise.race([gone, new Promise((done) => setTimeout(done, 60_000))]);
            if (exited === null) child.kill("SIGKILL");
          }
          rmSync(dataRoot, { recursive: true, force: true });
        };
        return { url, key: "key-js-acme", otherKey: "key-js-globex", stop };
      }
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`the local stack did not answer /health in ${START_TIMEOUT_MS / 1000} s:\n${tail()}`);
}

const given = process.env.ENGRAM_TEST_URL && process.env.ENGRAM_TEST_KEY;
const stack = given
  ? { url: process.env.ENGRAM_TEST_URL, key: process.env.ENGRAM_TEST_KEY, otherKey: process.env.ENGRAM_TEST_OTHER_KEY, stop: async () => {} }
  : await startStack();

const only = process.argv.slice(2);
const files = (only.length ? only : readdirSync(HERE).filter((f) => f.endsWith(".test.mjs")).map((f) => join(HERE, f)));
const env = { ...process.env, ENGRAM_TEST_URL: stack.url, ENGRAM_TEST_KEY: stack.key, ENGRAM_TEST_OTHER_KEY: stack.otherKey ?? "" };
const runner = spawn(process.execPath, ["--test", ...files], { env, stdio: "inherit" });
const code = await new Promise((done) => runner.on("exit", (c, signal) => done(c ?? (signal ? 1 : 0))));
await stack.stop();
process.exit(code);
