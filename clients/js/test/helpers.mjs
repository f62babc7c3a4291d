import { randomUUID } from "node:crypto";
import { Engram } from "../dist/index.js";

export const URL = process.env.ENGRAM_TEST_URL;
export const KEY = process.env.ENGRAM_TEST_KEY;
export const OTHER_KEY = process.env.ENGRAM_TEST_OTHER_KEY;
if (!URL || !KEY) throw new Error("run the suite with `npm test` (test/run.mjs), which sets ENGRAM_TEST_URL and ENGRAM_TEST_KEY");

/** A client of the test stack; `events: false` unless asked, so adds poll (Node 20 has no WebSocket). */
export const client = (options = {}) => new Engram({ url: URL, apiKey: KEY, events: false, ...options });

/** A user id no other test (or earlier run against the same stack) uses. */
export const uid = (label) => `js-${label}-${randomUUID().slice(0, 8)}`;
