// The lock the test files of one machine share while one of them packs vigie or installs a
// site: a lock whose holder has gone (a killed run, a machine restarted mid-run) is taken
// over at once instead of making every later run wait out its timeout.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { takeLock } from "./support/site-install.ts";

const dir = mkdtempSync(join(tmpdir(), "vigie-lock-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("a free lock is taken, with this process's pid in it", async () => {
  const busy = join(dir, "free");
  assert.equal(await takeLock(busy, "a test", 60_000), true);
  assert.equal(readFileSync(join(busy, "pid"), "utf8"), String(process.pid));
});

test("a lock whose holder has exited is removed, then taken", async () => {
  const busy = join(dir, "dead");
  const gone = spawnSync("true").pid;
  mkdirSync(busy);
  writeFileSync(join(busy, "pid"), String(gone));
  assert.equal(await takeLock(busy, "a test", 60_000), false);
  assert.equal(existsSync(busy), false);
  assert.equal(await takeLock(busy, "a test", 60_000), true);
});

test("a lock with no pid, older than a few seconds, is an older run's: removed", async () => {
  const busy = join(dir, "old");
  mkdirSync(busy);
  const minuteAgo = new Date(Date.now() - 60_000);
  utimesSync(busy, minuteAgo, minuteAgo);
  assert.equal(await takeLock(busy, "a test", 600_000), false);
  assert.equal(existsSync(busy), false);
});

test("a lock held by a live process is waited for, then an error naming it once past the timeout", async () => {
  const busy = join(dir, "held");
  mkdirSync(busy);
  writeFileSync(join(busy, "pid"), String(process.ppid));
  assert.equal(await takeLock(busy, "a test", 60_000), false);
  assert.equal(existsSync(busy), true);
  const quarterAgo = new Date(Date.now() - 900_000);
  utimesSync(busy, quarterAgo, quarterAgo);
  await assert.rejects(
    takeLock(busy, "the site's install", 600_000),
    /the site's install by another test file .* did not end in 600000 ms/,
  );
  // Twice the timeout: its pid is some other process's by now.
  const hourAgo = new Date(Date.now() - 3600_000);
  utimesSync(busy, hourAgo, hourAgo);
  assert.equal(await takeLock(busy, "a test", 600_000), false);
  assert.equal(existsSync(busy), false);
});
