// The README's `npm pack` writes the package outside the repository (a tarball left in clients/js would be
// committed by the next `git add -A`), and the package holds what an install needs.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { test } from "node:test";

const PACKAGE = fileURLToPath(new URL("..", import.meta.url));
const README = fileURLToPath(new URL("../../../README.md", import.meta.url));

test("the README's npm pack leaves no tarball in the repository", async () => {
  const command = /npm pack --pack-destination (\S+)/.exec(readFileSync(README, "utf8"));
  assert.ok(command, "the README packs with --pack-destination");
  const destination = mkdtempSync(join(tmpdir(), "engram-pack-"));
  const before = readdirSync(PACKAGE).filter((name) => name.endsWith(".tgz"));
  try {
    const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ["npm"];
    const run = promisify(execFile);
    await run(npm[0], [...npm.slice(1), "pack", "--pack-destination", destination], { cwd: PACKAGE, timeout: 120_000 });
    assert.deepEqual(readdirSync(PACKAGE).filter((name) => name.endsWith(".tgz")), before);
    const packed = readdirSync(destination);
    assert.equal(packed.length, 1);
    assert.match(packed[0], /^engram-client-.*\.tgz$/);
    const { stdout } = await run("tar", ["-tzf", join(destination, packed[0])]);
    assert.match(stdout, /package\/dist\/index\.js/);
  } finally {
    rmSync(destination, { recursive: true, force: true });
  }
});
