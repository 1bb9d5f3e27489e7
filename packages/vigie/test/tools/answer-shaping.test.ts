// How answers are shaped, from fixtures (no browser, no server): the size of a clean and of a
// broken page's js_errors answer, what a long list keeps and how it says the rest, and that
// the file every "see report" or `fullAnswer` names exists and holds what was cut.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { type Answer, MAX_ANSWER_BYTES, serialize } from "../../src/core/answer.ts";
import type { PageFindings } from "../../src/core/browser/findings.ts";
import { type Project, projectAt } from "../../src/core/project.ts";
import { jsErrorsAnswer } from "../../src/tools/browser.ts";
import { defineTool } from "../../src/tools/define.ts";
import { runTool } from "../../src/tools/run.ts";

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function project(): Project {
  const root = mkdtempSync(join(tmpdir(), "vigie-answers-"));
  roots.push(root);
  writeFileSync(join(root, "package.json"), "{}");
  return projectAt(root);
}

const URL_ = "http://127.0.0.1:4321/en/articles/mermaid/";

function findings(overrides: Partial<PageFindings> = {}): PageFindings {
  return { url: URL_, status: 200, title: "Mermaid", errors: [], warnings: [], failedRequests: [], mermaid: [], ...overrides };
}

const bytes = (answer: Answer) => Buffer.byteLength(serialize(answer));

/** The report an answer names, read back. */
function reportOf(p: Project, answer: Answer): PageFindings {
  assert.equal(typeof answer.report, "string", `no report in ${serialize(answer)}`);
  const path = join(p.root, answer.report as string);
  assert.ok(existsSync(path), `the report ${answer.report} was not written`);
  return JSON.parse(readFileSync(path, "utf8")) as PageFindings;
}

describe("js_errors answers", () => {
  test("a clean page: at most 600 bytes, no report", () => {
    const p = project();
    const answer = jsErrorsAnswer(p, findings(), "/en/articles/mermaid/");
    assert.ok(bytes(answer) <= 600, `${bytes(answer)} bytes: ${serialize(answer)}`);
    assert.equal(answer.report, undefined);
    assert.deepEqual(answer.errors, []);
    assert.match(String(answer.summary), /^clean/);
  });

  test("a broken page with one fault of each kind: at most 1 KB, each fault named with its source", () => {
    const p = project();
    const answer = jsErrorsAnswer(
      p,
      findings({
        errors: [
          {
            message: "Error: Diagram widget failed",
            at: "http://127.0.0.1:4321/src/components/Widget.astro?astro&type=script:12:11",
            count: 1,
            frames: [],
            located: { source: "src/components/Widget.astro:12" },
          },
        ],
        failedRequests: [
          { url: "http://127.0.0.1:4321/images/missing.png", status: 404, type: "image", located: { source: "src/content/a.mdx:9" } },
        ],
        mermaid: [{ diagram: 2, message: "Parse error on line 3: Expecting 'SEMI'", located: { source: "src/content/a.mdx:30" } }],
      }),
      "/en/articles/mermaid/",
    );
    assert.ok(bytes(answer) <= 1024, `${bytes(answer)} bytes: ${serialize(answer)}`);
    const text = serialize(answer);
    for (const expected of [
      "Diagram widget failed",
      "src/components/Widget.astro:12",
      "404 image /images/missing.png",
      "src/content/a.mdx:30",
    ])
      assert.ok(text.includes(expected), `${expected} missing from ${text}`);
    assert.equal(answer.report, undefined, "nothing was cut: no report");
  });

  test("more errors than listed: five shown, '+N more (see report)', and the report holds them all", () => {
    const p = project();
    const errors = Array.from({ length: 9 }, (_, i) => ({ message: `Error: failure number ${i + 1}`, count: 1, frames: [] }));
    const answer = jsErrorsAnswer(p, findings({ errors }), "/");
    const listed = answer.errors as unknown[];
    assert.equal(listed.length, 6);
    assert.equal(listed.at(-1), "+4 more (see report)");
    assert.deepEqual(reportOf(p, answer).errors, errors);
    assert.ok(bytes(answer) <= MAX_ANSWER_BYTES);
  });

  test("more warnings than listed, few errors: the report the '+N more' names is written", () => {
    const p = project();
    const warnings = Array.from({ length: 7 }, (_, i) => `warning ${i + 1}: a deprecated API`);
    const answer = jsErrorsAnswer(p, findings({ warnings }), "/en/");
    assert.equal((answer.warnings as unknown[]).at(-1), "+2 more (see report)");
    assert.deepEqual(reportOf(p, answer).warnings, warnings);
  });

  test("long messages are clipped, never the whole stack", () => {
    const p = project();
    const long = { message: `Error: ${"x".repeat(5000)}`, count: 1, frames: [] };
    const answer = jsErrorsAnswer(p, findings({ errors: [long] }), "/");
    assert.ok(bytes(answer) <= 1024, `${bytes(answer)} bytes`);
  });
});

describe("any tool's answer over 2 KB", () => {
  const big = defineTool({
    exportName: "big",
    group: "browser",
    title: "A tool with a long answer",
    readOnly: true,
    idempotent: true,
    description: "Answers more than fits.",
    args: () => ({}),
    run: async () => ({ items: Array.from({ length: 400 }, (_, i) => `item ${i}`), note: "n".repeat(3000), count: 400 }),
  });

  test("is cut to fit, says so, and the full answer is in the file it names", async () => {
    const p = project();
    const answer = await runTool(big, {}, { project: p, prefix: "blog" });
    assert.ok(bytes(answer) <= MAX_ANSWER_BYTES, `${bytes(answer)} bytes`);
    assert.equal(answer.truncated, true);
    const path = join(p.root, String(answer.fullAnswer));
    assert.ok(existsSync(path), `${answer.fullAnswer} was not written`);
    const full = JSON.parse(readFileSync(path, "utf8")) as { items: string[]; count: number };
    assert.equal(full.items.length, 400);
    assert.equal(full.count, 400);
  });
});
