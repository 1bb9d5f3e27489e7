// How answers are shaped by the one renderer (tools/render.ts), from fixtures (no browser, no
// server): the size of a clean and of a broken page's js_errors answer, what a long list keeps
// and how `more` says the rest, that the report `files.report` names exists and holds what was
// cut, and that every tool of the registry stays under its declared budget however long its lists.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { type Answer, MAX_ANSWER_BYTES, serialize } from "../../src/core/answer.ts";
import type { PageFindings } from "../../src/core/browser/page/findings.ts";
import { type Project, projectAt } from "../../src/core/project.ts";
import { findingsOutput } from "../../src/tools/browser.ts";
import { defineTool, type ToolDefinition, toolName } from "../../src/tools/define.ts";
import { findTool, registry } from "../../src/tools/registry.ts";
import { renderAnswer } from "../../src/tools/render.ts";
import { runTool } from "../../src/tools/run.ts";
import { assertAnswerMatches } from "../support/answers.ts";

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

const jsErrors = findTool("blog_browser_js_errors") as ToolDefinition;

function jsErrorsAnswer(p: Project, page: PageFindings, path: string): Answer {
  const answer = renderAnswer(jsErrors, findingsOutput(page, path), { project: p });
  assertAnswerMatches(jsErrors, answer);
  return answer;
}

/** The report an answer names in `files`, read back. */
function reportOf<T>(p: Project, answer: Answer): T {
  const report = (answer.files as { report?: string } | undefined)?.report;
  assert.equal(typeof report, "string", `no report in ${serialize(answer)}`);
  const path = join(p.root, report as string);
  assert.ok(existsSync(path), `the report ${report} was not written`);
  return JSON.parse(readFileSync(path, "utf8")) as T;
}

describe("js_errors answers", () => {
  test("a clean page: at most 600 bytes, no report", () => {
    const p = project();
    const answer = jsErrorsAnswer(p, findings(), "/en/articles/mermaid/");
    assert.ok(bytes(answer) <= 600, `${bytes(answer)} bytes: ${serialize(answer)}`);
    assert.equal(answer.files, undefined);
    assert.equal(answer.more, undefined);
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
    assert.equal(answer.files, undefined, "nothing was cut: no report");
  });

  test("more errors than listed: five shown, more.errors beside them, and the report holds them all", () => {
    const p = project();
    const errors = Array.from({ length: 9 }, (_, i) => ({ message: `Error: failure number ${i + 1}`, count: 1, frames: [] }));
    const answer = jsErrorsAnswer(p, findings({ errors }), "/");
    assert.deepEqual(answer.errors, [
      "Error: failure number 1",
      "Error: failure number 2",
      "Error: failure number 3",
      "Error: failure number 4",
      "Error: failure number 5",
    ]);
    assert.deepEqual(answer.more, { errors: 4 });
    assert.deepEqual(Object.keys(answer).slice(3, 6), ["errors", "more", "failedRequests"], "more sits beside the list it counts");
    assert.deepEqual(reportOf<PageFindings>(p, answer).errors, errors);
    assert.equal((answer.files as { report: string }).report, ".opencode/reports/js-errors--.json");
    assert.ok(bytes(answer) <= 1024);
  });

  test("more warnings than listed, few errors: the report more.warnings points to is written", () => {
    const p = project();
    const warnings = Array.from({ length: 7 }, (_, i) => `warning ${i + 1}: a deprecated API`);
    const answer = jsErrorsAnswer(p, findings({ warnings }), "/en/");
    assert.deepEqual(answer.more, { warnings: 2 });
    assert.deepEqual(reportOf<PageFindings>(p, answer).warnings, warnings);
  });

  test("long messages are clipped, never the whole stack", () => {
    const p = project();
    const long = { message: `Error: ${"x".repeat(5000)}`, count: 1, frames: [] };
    const answer = jsErrorsAnswer(p, findings({ errors: [long] }), "/");
    assert.ok(bytes(answer) <= 1024, `${bytes(answer)} bytes`);
  });

  test("many long faults: the longest list loses items first, down to the budget", () => {
    const p = project();
    const message = (i: number) => `Error: a long failure message number ${i} ${"y".repeat(150)}`;
    const errors = Array.from({ length: 5 }, (_, i) => ({ message: message(i), count: 1, frames: [] }));
    const failedRequests = Array.from({ length: 3 }, (_, i) => ({
      url: `http://127.0.0.1:4321/missing-${i}-${"z".repeat(120)}.png`,
      status: 404,
      type: "image",
    }));
    const answer = jsErrorsAnswer(p, findings({ errors, failedRequests }), "/");
    assert.ok(bytes(answer) <= 1024, `${bytes(answer)} bytes: ${serialize(answer)}`);
    const shown = (answer.errors as unknown[]).length;
    const more = answer.more as Record<string, number>;
    assert.equal(shown + (more.errors ?? 0), 5);
    assert.equal((answer.failedRequests as unknown[]).length + (more.failedRequests ?? 0), 3);
    assert.ok(shown >= 1 && (answer.failedRequests as unknown[]).length >= 1, "each list keeps one item at least");
  });
});

describe("the renderer", () => {
  const tool = (extra: Partial<ToolDefinition>, answer: Answer) =>
    defineTool({
      exportName: "big",
      group: "browser",
      title: "A tool with a long answer",
      readOnly: true,
      idempotent: true,
      description: "Answers more than fits.",
      args: () => ({}),
      answer: () => ({}),
      run: async () => ({ answer }),
      ...extra,
    });

  test("an answer over its budget that no list explains gets the last resort; the report has it whole", async () => {
    const p = project();
    const big = tool({}, { items: Array.from({ length: 400 }, (_, i) => `item ${i}`), note: "n".repeat(3000), count: 400 });
    const answer = await runTool(big, {}, { project: p, prefix: "blog" });
    assert.ok(bytes(answer) <= MAX_ANSWER_BYTES, `${bytes(answer)} bytes`);
    assert.deepEqual((answer.more as Record<string, number>).items, 397);
    assert.equal(answer.count, 400);
    const full = reportOf<{ items: string[]; count: number; note: string }>(p, answer);
    assert.equal((answer.files as { report: string }).report, ".opencode/reports/blog_browser_big.json");
    assert.equal(full.items.length, 400);
    assert.equal(full.note.length, 3000);
  });

  test("a list kept at its end loses its first items; more is said beside a nested list", () => {
    const p = project();
    const tail = tool(
      { lists: { lines: { show: 3, keep: "last" }, "content.problems": 2 } },
      { lines: ["1", "2", "3", "4", "5"], content: { count: 3, problems: ["a", "b", "c"], success: false }, ms: 4 },
    );
    const answer = renderAnswer(
      tail,
      { answer: { lines: ["1", "2", "3", "4", "5"], content: { count: 3, problems: ["a", "b", "c"], success: false }, ms: 4 } },
      { project: p },
    );
    assert.deepEqual(answer, {
      lines: ["3", "4", "5"],
      more: { lines: 2 },
      content: { count: 3, problems: ["a", "b"], more: { problems: 1 }, success: false },
      ms: 4,
      files: { report: ".opencode/reports/blog_browser_big.json" },
    });
  });

  test("the files of an answer, and of an error's context, are in `files` alone", async () => {
    const p = project();
    const withFiles = defineTool({
      exportName: "files",
      group: "browser",
      title: "t",
      readOnly: true,
      idempotent: true,
      description: "d",
      args: () => ({}),
      answer: () => ({}),
      run: async () => ({ answer: { ok: true }, files: { screenshot: ".opencode/screenshots/a.png", log: undefined } }),
    });
    assert.deepEqual(await runTool(withFiles, {}, { project: p }), { ok: true, files: { screenshot: ".opencode/screenshots/a.png" } });
  });
});

/** A long item for a list: a log line, or a finding with a long message. */
const item = (list: string, i: number): unknown =>
  /lines|logTail|outputTail|notes|warnings|onThePage|notChecked|serverErrors/.test(list)
    ? `${list} line ${i}: ${"w".repeat(140)}`
    : { message: `${list} item ${i}: ${"m".repeat(140)}`, file: `src/content/articles/en/article-${i}.mdx`, line: i };

/** The declared lists of `definition` that stand in an answer's object, not in the items of another list ("errors.details"). */
const listsOf = (definition: ToolDefinition): string[] => {
  const lists = Object.keys(definition.lists ?? {});
  return lists.filter((list) => !lists.some((other) => list.startsWith(`${other}.`)));
};

/** An answer holding each declared list of `definition`, 300 items long, at its path. */
function longAnswer(definition: ToolDefinition): Answer {
  const answer: Answer = { summary: "a page with many faults", path: "/en/articles/a-long-path/" };
  for (const list of listsOf(definition)) {
    const path = list.split(".");
    let holder = answer;
    for (const key of path.slice(0, -1)) {
      holder[key] ??= { count: 300 };
      holder = holder[key] as Answer;
    }
    holder[path.at(-1) as string] = Array.from({ length: 300 }, (_, i) => item(list, i));
  }
  return answer;
}

describe("every tool's answer stays under its budget", () => {
  test("with every declared list 300 items long, each cut, counted in more and whole in the report", () => {
    const p = project();
    for (const definition of registry) {
      const name = toolName(definition);
      const lists = listsOf(definition);
      const whole = longAnswer(definition);
      const answer = renderAnswer(definition, { answer: whole }, { project: p });
      const budget = definition.budget ?? MAX_ANSWER_BYTES;
      assert.ok(bytes(answer) <= budget, `${name}: ${bytes(answer)} bytes over ${budget}: ${serialize(answer).slice(0, 400)}`);
      if (lists.length === 0) continue;
      const full = reportOf<Answer>(p, answer);
      for (const list of lists) {
        const path = list.split(".");
        const holder = path.slice(0, -1).reduce((value, key) => (value as Answer)[key] as Answer, answer as Answer);
        const key = path.at(-1) as string;
        const shown = (holder[key] as unknown[]).length;
        if (list === lists[0]) assert.ok(shown >= 1, `${name}: ${list}, its first list, keeps an item`);
        assert.equal(shown + ((holder.more as Record<string, number>)[key] ?? 0), 300, `${name}: ${list} shown and more`);
        const inReport = path.reduce((value, part) => (value as Answer)[part], full as unknown) as unknown[];
        assert.equal(inReport.length, 300, `${name}: ${list} whole in the report`);
      }
    }
  });
});
