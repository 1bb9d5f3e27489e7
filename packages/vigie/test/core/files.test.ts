// The core's small readers: one folder walker, one JSON reader.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { readJson, walkFiles } from "../../src/core/files.ts";

const root = mkdtempSync(join(tmpdir(), "vigie-files-"));
after(() => rmSync(root, { recursive: true, force: true }));
const write = (path: string, text = "") => {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), text);
};
for (const path of ["index.html", "a/b/c/deep.js", "a/page.mjs", ".hidden/x.js", "a/.env", "node_modules/m/i.js", "z.json"]) write(path);

describe("walkFiles", () => {
  test("every file, relative and sorted, dot-files and dot-folders left out", () => {
    assert.deepEqual(walkFiles(root), ["a/b/c/deep.js", "a/page.mjs", "index.html", "node_modules/m/i.js", "z.json"]);
  });

  test("folders skipped by name, a depth, the files kept, a limit", () => {
    assert.deepEqual(walkFiles(root, { skip: new Set(["node_modules"]), keep: (name) => /\.m?js$/.test(name) }), [
      "a/b/c/deep.js",
      "a/page.mjs",
    ]);
    assert.deepEqual(walkFiles(root, { maxDepth: 1, skip: new Set(["node_modules"]) }), ["a/page.mjs", "index.html", "z.json"]);
    assert.equal(walkFiles(root, { limit: 2 }).length, 2);
  });

  test("a folder that does not exist: no file", () => {
    assert.deepEqual(walkFiles(join(root, "missing")), []);
  });
});

describe("readJson", () => {
  test("an object, else undefined (missing, not JSON, not an object)", () => {
    write("object.json", '{"a": 1}');
    write("array.json", "[1]");
    write("broken.json", "{");
    assert.deepEqual(readJson(join(root, "object.json")), { a: 1 });
    assert.equal(readJson(join(root, "array.json")), undefined);
    assert.equal(readJson(join(root, "broken.json")), undefined);
    assert.equal(readJson(join(root, "none.json")), undefined);
  });
});
