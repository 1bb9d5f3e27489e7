// astro check on a copy of the blog with one type error: found with its file and
// line; the unused-variable notice that comes with it is a hint, not a warning.
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { cacheDir, checkCacheKey } from "../../../src/core/typecheck/cache.ts";
import { CHECK_COMMAND, type CheckResult, parseCheckOutput, runCheck } from "../../../src/core/typecheck/typecheck.ts";
import { appendBlock } from "../../support/articles.ts";
import { type BlogCopy, copyBlog } from "../../support/blog.ts";

describe("astro check", () => {
  let copy: BlogCopy;
  let line: number;
  let result: CheckResult;

  before(async () => {
    copy = copyBlog("check-fault");
    line = appendBlock(copy.root, "src/lib/articles.ts", 'const typeFault: number = "not a number";');
    // A result kept from an earlier run of this test is dropped: this one runs astro check.
    const key = checkCacheKey(copy, CHECK_COMMAND);
    const dir = cacheDir(copy);
    if ("key" in key && dir) rmSync(join(dir, `${key.key}.json`), { force: true });
    result = await runCheck(copy);
  });

  after(() => copy?.remove());

  test("finds the type error at its file and line", () => {
    assert.equal(result.success, false);
    assert.equal(result.errors, 1);
    const [first] = result.diagnostics;
    assert.deepEqual(
      { file: first?.file, line: first?.line, severity: first?.severity, code: first?.code },
      { file: "src/lib/articles.ts", line, severity: "error", code: "ts(2322)" },
    );
    assert.match(first?.message ?? "", /not assignable to type 'number'/);
    assert.ok((result.files ?? 0) > 10);
  });

  test("checked again with nothing changed: the same diagnostics, kept from the first run", async () => {
    assert.equal(result.cached, undefined, "the first run ran astro check");
    const again = await runCheck(copy);
    assert.ok(again.cached, "astro check ran again on the same content");
    assert.deepEqual(again.diagnostics, result.diagnostics);
    assert.deepEqual(
      [again.errors, again.warnings, again.hints, again.files],
      [result.errors, result.warnings, result.hints, result.files],
    );
    console.log(`# astro check ${result.durationS} s; the same content again, from the cache: ${again.durationS} s`);
  });

  test("counts the unused variable as a hint, not a warning", () => {
    assert.equal(result.warnings, 0);
    assert.equal(result.hints, 1);
    assert.equal(result.diagnostics.find((diagnostic) => diagnostic.code === "ts(6133)")?.severity, "hint");
  });

  test("a message that goes on over several lines is read whole", () => {
    const parsed = parseCheckOutput(
      [
        "src/a.astro:3:7 - error ts(2322): Type '{ a: number; }' is not assignable to type 'Props'.",
        "  Object literal may only specify known properties.",
        "",
        "3 const x: Props = { a: 1 };",
        "        ~",
        "",
        "Result (1 file): ",
        "- 1 error",
        "- 0 warnings",
        "- 0 hints",
      ].join("\n"),
    );
    assert.equal(parsed.errors, 1);
    assert.equal(
      parsed.diagnostics[0]?.message,
      "Type '{ a: number; }' is not assignable to type 'Props'. Object literal may only specify known properties.",
    );
  });
});
