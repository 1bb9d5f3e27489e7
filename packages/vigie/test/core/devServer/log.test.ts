// The log as the logs tool reads it, without a server: colours stripped, errors kept with
// their stacks, a size cap, `since: "last"` across a trim, the logs tool's answer within its
// budget; and the ready line's parsing.
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { MAX_ANSWER_BYTES } from "../../../src/core/answer.ts";
import { LOG_CAP_BYTES, readDevLogs } from "../../../src/core/devServer/log.ts";
import { parseLocalLine } from "../../../src/core/devServer/ready.ts";
import { projectAt } from "../../../src/core/project.ts";
import { findTool } from "../../../src/tools/registry.ts";
import { runTool } from "../../../src/tools/run.ts";
import { FIXTURES_DIR } from "../../support/blog.ts";

const root = join(FIXTURES_DIR, `dev-log-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
const project = projectAt(root);
const logPath = join(project.stateDir, "dev-server.log");

describe("the dev-server log", () => {
  before(() => mkdirSync(project.stateDir, { recursive: true }));
  after(() => rmSync(root, { recursive: true, force: true }));

  test("colours and other escape sequences are stripped", async () => {
    writeFileSync(
      logPath,
      "\u001b[32m┃ Local\u001b[39m    \u001b[1mhttp://127.0.0.1:4321/\u001b[22m\r\n\u001b]8;;http://x\u0007link\u001b]8;;\u0007 done\n",
    );
    const answer = await readDevLogs(project);
    assert.deepEqual(answer.lines, ["┃ Local    http://127.0.0.1:4321/", "link done"]);
  });

  test('level "error" keeps error lines with their stack and code frames, and folds library frames', async () => {
    writeFileSync(
      logPath,
      [
        "10:00:00 [200] /articles/error-handling/ 5ms",
        "10:00:00 [500] /broken/ 5ms",
        "10:00:01 [ERROR] [vite] TypeError: boom is not a function",
        "    at render (/site/src/components/Card.astro:12:5)",
        "    at a (/site/node_modules/astro/dist/a.js:1:1)",
        "    at b (/site/node_modules/astro/dist/b.js:2:2)",
        "    at c (/site/node_modules/vite/dist/c.js:3:3)",
        "  11 | const x = 1;",
        "     ^",
        "10:00:02 [200] /en/ 3ms",
        "10:00:03 [WARN] [content] duplicate id",
        "10:00:04 watching for file changes...",
        "",
      ].join("\n"),
    );
    const errors = await readDevLogs(project, { level: "error" });
    assert.deepEqual(errors.lines, [
      "10:00:00 [500] /broken/ 5ms",
      "10:00:01 [ERROR] [vite] TypeError: boom is not a function",
      "    at render (/site/src/components/Card.astro:12:5)",
      "    at a (/site/node_modules/astro/dist/a.js:1:1)",
      "    [2 more frames in node_modules]",
      "  11 | const x = 1;",
      "     ^",
    ]);
    const warnings = await readDevLogs(project, { level: "warn", filter: "duplicate" });
    assert.deepEqual(warnings.lines, ["10:00:03 [WARN] [content] duplicate id"]);
  });

  test("the last N lines whole; the tool's answer clips the long ones, under 2 KB, its newest lines kept", async () => {
    writeFileSync(
      logPath,
      `${Array.from({ length: 300 }, (_, index) => `line ${index} ${"y".repeat(index === 299 ? 1000 : 10)}`).join("\n")}\n`,
    );
    const answer = await readDevLogs(project, { lines: 3 });
    assert.equal(answer.lines.length, 3);
    assert.equal(answer.total, 300);
    assert.equal((answer.lines.at(-1) as string).length, "line 299 ".length + 1000, "the core gives the line whole");
    const logs = findTool("blog_dev_logs");
    assert.ok(logs);
    const many = await runTool(logs, { lines: 500 }, { project });
    assert.ok(Buffer.byteLength(JSON.stringify(many)) <= MAX_ANSWER_BYTES);
    const shown = many.lines as string[];
    assert.equal(shown.at(-1), `${(answer.lines.at(-1) as string).slice(0, 239)}…`, "the tool's limit clips it");
    assert.equal(shown.length + (many.more as { lines: number }).lines, 300, "more.lines counts the lines asked for and left out");
    const { report, log } = many.files as { report: string; log: string };
    assert.equal(log, ".opencode/dev-server.log");
    assert.equal(readFileSync(join(project.root, report), "utf8").split("\n").length, 301, "the report has every line asked for");
  });

  test("past the size cap the log keeps its tail, and since last follows the trim", async () => {
    writeFileSync(logPath, "first line\n");
    await readDevLogs(project, { since: "last" });
    const chunk = `${"z".repeat(1023)}\n`.repeat(1024);
    for (let index = 0; index <= LOG_CAP_BYTES / chunk.length; index++) appendFileSync(logPath, chunk);
    appendFileSync(logPath, "after the flood\n");
    assert.ok(statSync(logPath).size > LOG_CAP_BYTES);
    const answer = await readDevLogs(project, { since: "last", lines: 1 });
    assert.deepEqual(answer.lines, ["after the flood"]);
    assert.ok(statSync(logPath).size < LOG_CAP_BYTES, "the log was trimmed");
    appendFileSync(logPath, "one more\n");
    assert.deepEqual((await readDevLogs(project, { since: "last" })).lines, ["one more"]);
    assert.deepEqual((await readDevLogs(project, { since: "last" })).lines, []);
  });

  test("an unfinished last line waits for the next call", async () => {
    writeFileSync(logPath, "done\n");
    await readDevLogs(project, { since: "last" });
    appendFileSync(logPath, "half");
    assert.deepEqual((await readDevLogs(project, { since: "last" })).lines, []);
    appendFileSync(logPath, " and whole\n");
    assert.deepEqual((await readDevLogs(project, { since: "last" })).lines, ["half and whole"]);
  });

  test("the ready line gives the port, from Astro's and Vite's wording, only when complete", () => {
    assert.deepEqual(parseLocalLine("┃ Local    http://127.0.0.1:4321/\n"), { url: "http://127.0.0.1:4321/", port: 4321 });
    assert.deepEqual(parseLocalLine("  ➜  Local:   http://localhost:5173/\n"), { url: "http://localhost:5173/", port: 5173 });
    assert.deepEqual(parseLocalLine("Local http://[::1]:8080/ "), { url: "http://[::1]:8080/", port: 8080 });
    assert.equal(parseLocalLine("┃ Local    http://127.0.0.1:432"), undefined);
    assert.equal(parseLocalLine("[vite] Port 4321 is in use, trying another one..."), undefined);
  });
});
