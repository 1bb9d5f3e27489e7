// JSON snapshots: a value compared with the JSON file committed beside its test, exactly
// (same values, same key order). `UPDATE_SNAPSHOTS=1` rewrites the file instead, formatted
// as the repository's formatter wants it, so that lint stays green; review the diff, then commit.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { BLOG_ROOT } from "./blog.ts";

export const UPDATE_SNAPSHOTS = process.env.UPDATE_SNAPSHOTS === "1";

export function matchSnapshot(file: string, actual: unknown): void {
  const shown = relative(BLOG_ROOT, file);
  if (UPDATE_SNAPSHOTS) {
    writeFileSync(file, `${JSON.stringify(actual, null, 2)}\n`);
    spawnSync(join(BLOG_ROOT, "node_modules", ".bin", "biome"), ["format", "--write", file], { cwd: BLOG_ROOT, stdio: "ignore" });
    console.log(`snapshot written: ${shown}`);
    return;
  }
  assert.ok(existsSync(file), `no snapshot at ${shown}: run this test with UPDATE_SNAPSHOTS=1 to write it`);
  const expected = JSON.parse(readFileSync(file, "utf8")) as unknown;
  const hint = `differs from ${shown}; if the change is meant, rerun with UPDATE_SNAPSHOTS=1 and commit the new snapshot`;
  assert.deepStrictEqual(actual, expected, hint);
  assert.equal(JSON.stringify(actual), JSON.stringify(expected), `key order ${hint}`);
}
