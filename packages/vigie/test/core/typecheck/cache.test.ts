// The type check's cache, with a stand-in for astro check that counts its runs: a project
// unchanged since a run gets that run's result without running it; an edit of a source, a
// new file, a `.env`, the lockfile or a linked workspace package runs it again; output and
// dependency folders do not; a run whose project changed while it ran is not kept.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { projectAt } from "../../../src/core/project.ts";
import { CACHE_ENTRIES, cacheDir, checkCacheKey } from "../../../src/core/typecheck/cache.ts";
import { runCheck } from "../../../src/core/typecheck/typecheck.ts";

const OUTPUT = [
  "src/lib/a.ts:1:7 - error ts(2322): Type 'string' is not assignable to type 'number'.",
  "",
  "Result (3 files): ",
  "- 1 error",
  "- 0 warnings",
  "- 0 hints",
].join("\n");

describe("the type check's cache", () => {
  let top: string;
  let root: string;
  let runs: string;
  let command: string[];
  const project = () => projectAt(root);
  const count = () => readFileSync(runs, "utf8").length;

  before(() => {
    top = mkdtempSync(join(tmpdir(), "vigie-check-cache-"));
    root = join(top, "site");
    mkdirSync(join(root, "src", "lib"), { recursive: true });
    mkdirSync(join(root, "node_modules", "astro"), { recursive: true });
    writeFileSync(join(root, "node_modules", "astro", "package.json"), '{"name":"astro","version":"7.0.0"}');
    writeFileSync(join(root, "package.json"), '{"name":"site"}');
    writeFileSync(join(root, "package-lock.json"), '{"lockfileVersion":3}');
    writeFileSync(join(root, "src", "lib", "a.ts"), 'export const a: number = "x";\n');
    runs = join(top, "runs");
    writeFileSync(runs, "");
    // The stand-in prints astro check's output and marks each run it makes.
    const script = join(top, "check.mjs");
    writeFileSync(
      script,
      `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(runs)}, "x");\nconsole.log(${JSON.stringify(OUTPUT)});\n`,
    );
    command = [process.execPath, script];
  });

  after(() => rmSync(top, { recursive: true, force: true }));

  test("an unchanged project: the earlier result, the check not run, said so", async () => {
    const first = await runCheck(project(), { command });
    assert.equal(count(), 1);
    assert.equal(first.cached, undefined);
    assert.equal(first.errors, 1);
    const second = await runCheck(project(), { command });
    assert.equal(count(), 1, "the check ran again");
    assert.deepEqual(second.diagnostics, first.diagnostics);
    assert.equal(second.errors, 1);
    assert.ok(second.cached?.at, "a kept result says when it was made");
    assert.match(readFileSync(join(root, second.report), "utf8"), /kept for the same content of \d+ files[\s\S]*1 error/);
    assert.equal(readdirSync(cacheDir(project()) ?? "").length, 1);
  });

  test("what the check reads changed: it runs again; outputs and dependencies are not read", async () => {
    const runsFor = async (change: () => void) => {
      const before = count();
      change();
      await runCheck(project(), { command });
      return count() - before;
    };
    assert.equal(
      await runsFor(() => writeFileSync(join(root, "src", "lib", "a.ts"), 'export const a: number = "y";\n')),
      1,
      "a source edited",
    );
    assert.equal(await runsFor(() => writeFileSync(join(root, "src", "lib", "b.ts"), "export const b = 1;\n")), 1, "a source added");
    assert.equal(await runsFor(() => writeFileSync(join(root, ".env"), "PUBLIC_API=1\n")), 1, "a .env file");
    assert.equal(await runsFor(() => writeFileSync(join(root, "package-lock.json"), '{"lockfileVersion":3,"x":1}')), 1, "the lockfile");
    assert.equal(
      await runsFor(() => writeFileSync(join(root, "node_modules", "astro", "package.json"), '{"name":"astro","version":"7.0.1"}')),
      1,
      "astro's version",
    );
    assert.equal(
      await runsFor(() => {
        mkdirSync(join(root, "dist"), { recursive: true });
        writeFileSync(join(root, "dist", "index.html"), "<p>built</p>");
        mkdirSync(join(root, ".astro"), { recursive: true });
        writeFileSync(join(root, ".astro", "types.d.ts"), "// synced");
        writeFileSync(join(root, "node_modules", "x.js"), "");
      }),
      0,
      "the build's output, .astro/ and node_modules",
    );
  });

  test("a workspace package linked into node_modules is read as the project's own files", async () => {
    const linked = join(top, "packages", "ui");
    mkdirSync(linked, { recursive: true });
    writeFileSync(join(linked, "index.ts"), "export const ui = 1;\n");
    symlinkSync(linked, join(root, "node_modules", "ui"));
    const key = () => {
      const made = checkCacheKey(project(), command);
      return "key" in made ? made.key : made.none;
    };
    const before = key();
    writeFileSync(join(linked, "index.ts"), "export const ui = 2;\n");
    assert.notEqual(key(), before);
  });

  test("a project changed while the check ran: its result is not kept", async () => {
    // This stand-in edits a source as it runs, as an agent's save during a check does.
    const script = join(top, "check-edits.mjs");
    const edited = join(root, "src", "lib", "d.ts");
    writeFileSync(
      script,
      `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(runs)}, "x");\nappendFileSync(${JSON.stringify(edited)}, "// saved\\n");\nconsole.log(${JSON.stringify(OUTPUT)});\n`,
    );
    writeFileSync(edited, "export const d = 1;\n");
    const editing = [process.execPath, script];
    const before = count();
    await runCheck(project(), { command: editing });
    writeFileSync(edited, "export const d = 1;\n");
    await runCheck(project(), { command: editing });
    assert.equal(count() - before, 2, "the first run's result was kept for content it did not check");
  });

  test("the kept results are the newest few; none is kept with the cache off", async () => {
    const dir = cacheDir(project()) ?? "";
    for (let i = 0; i < CACHE_ENTRIES + 3; i += 1) {
      writeFileSync(join(root, "src", "lib", "c.ts"), `export const c = ${i};\n`);
      await runCheck(project(), { command });
    }
    assert.equal(readdirSync(dir).filter((name) => name.endsWith(".json")).length, CACHE_ENTRIES);
    const before = count();
    await runCheck(project(), { command, cache: false });
    await runCheck(project(), { command, cache: false });
    assert.equal(count() - before, 2);
  });
});
