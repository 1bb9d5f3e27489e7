// The string limits a tool's definition declares (`limits`), applied by the one renderer: a
// field, the field of each item of a list, each string of a list, a list inside each item of
// another; the whole values then in the report. For every tool of the registry, each declared
// limit holds on an answer whose strings are all too long; and through every face (runTool,
// OpenCode, MCP, the CLI) blog_dev_logs clips a long log line to its declared limit, the
// answer under 2 KB and the report holding the line whole.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type Answer, MAX_ANSWER_BYTES, serialize } from "../../src/core/answer.ts";
import { type Project, projectAt } from "../../src/core/project.ts";
import { closeMcpSession, createMcpServer } from "../../src/faces/mcp.ts";
import { openCodeTools } from "../../src/faces/opencode.ts";
import { defineTool, type ToolDefinition, toolName } from "../../src/tools/define.ts";
import { findTool, registry } from "../../src/tools/registry.ts";
import { renderAnswer } from "../../src/tools/render.ts";
import { runTool } from "../../src/tools/run.ts";
import { assertAnswerMatches } from "../support/answers.ts";

const MAIN = join(import.meta.dirname, "..", "..", "src", "cli", "main.ts");

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function project(): Project {
  const root = mkdtempSync(join(tmpdir(), "vigie-limits-"));
  roots.push(root);
  writeFileSync(join(root, "package.json"), '{"name":"limits","private":true}\n');
  return projectAt(root);
}

const bytes = (answer: Answer) => Buffer.byteLength(serialize(answer));

/** The report an answer names in `files`, read back as text. */
function reportText(p: Project, answer: Answer): string {
  const report = (answer.files as { report?: string } | undefined)?.report;
  assert.equal(typeof report, "string", `no report in ${serialize(answer)}`);
  const path = join(p.root, report as string);
  assert.ok(existsSync(path), `the report ${report} was not written`);
  return readFileSync(path, "utf8");
}

const tool = (extra: Partial<ToolDefinition>) =>
  defineTool({
    exportName: "limited",
    group: "build",
    title: "A tool with limits",
    readOnly: true,
    idempotent: true,
    description: "Answers long strings.",
    args: () => ({}),
    answer: () => ({}),
    run: async () => ({ answer: {} }),
    ...extra,
  });

describe("the renderer applies the declared limits", () => {
  test("a field, the field of each item, each string of a list, a list inside each item; the report has them whole", () => {
    const p = project();
    const definition = tool({
      lists: { errors: 5, "errors.details": 2 },
      limits: { why: 10, "errors.message": 8, notes: 6, "changed.reason": 5 },
    });
    const whole = {
      why: "a reason longer than ten characters",
      errors: [
        { message: "the first error message", details: ["a", "b", "c", "d"], line: 3 },
        { message: "short", details: ["e"] },
      ],
      notes: ["a long note", "note"],
      changed: { reason: "because of this", chosen: 2 },
      untouched: "a field no limit names stays as it is, whatever its length",
    };
    const answer = renderAnswer(definition, { answer: structuredClone(whole) }, { project: p });
    assert.deepEqual(answer, {
      why: "a reason …",
      errors: [
        { message: "the fir…", details: ["a", "b"], more: { details: 2 }, line: 3 },
        { message: "short", details: ["e"] },
      ],
      notes: ["a lon…", "note"],
      changed: { reason: "beca…", chosen: 2 },
      untouched: whole.untouched,
      files: { report: ".opencode/reports/blog_build_limited.json" },
    });
    assert.deepEqual(JSON.parse(reportText(p, answer)), whole);
  });

  test("strings within their limits: the answer as given, no report", () => {
    const p = project();
    const given = { why: "short", errors: [{ message: "ok" }] };
    const answer = renderAnswer(tool({ limits: { why: 10, "errors.message": 8 } }), { answer: given }, { project: p });
    assert.deepEqual(answer, given);
  });

  test("the arguments a tool does not know: at most ten named, each at most 60 characters", async () => {
    const p = project();
    const raw = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`unknown_${i}_${"x".repeat(80)}`, true]));
    const answer = await runTool(tool({ run: async () => ({ answer: { ok: true } }) }), raw, { project: p });
    const named = answer.ignoredArguments as string[];
    assert.equal(named.length, 10);
    for (const name of named) assert.ok(name.length <= 60, name);
    assert.deepEqual(answer.more, { ignoredArguments: 2 });
  });
});

/** A string far longer than any limit. */
const LONG = `${"long text ".repeat(100)}end`;

/** An answer with a long string at every path the definition limits, through a list of two items where the path goes through one. */
function longStrings(definition: ToolDefinition): Answer {
  const answer: Answer = {};
  const lists = new Set(Object.keys(definition.lists ?? {}));
  for (const path of Object.keys(definition.limits ?? {})) {
    const keys = path.split(".");
    let holders: Answer[] = [answer];
    keys.forEach((key, index) => {
      const prefix = keys.slice(0, index + 1).join(".");
      const last = index === keys.length - 1;
      holders = holders.flatMap((holder) => {
        if (last) {
          holder[key] = lists.has(prefix) ? [LONG, LONG] : LONG;
          return [];
        }
        if (lists.has(prefix)) {
          holder[key] ??= [{}, {}];
          return holder[key] as Answer[];
        }
        holder[key] ??= {};
        return [holder[key] as Answer];
      });
    });
  }
  return answer;
}

/** Every string found at `path` of `value`, through lists. */
function stringsAt(value: unknown, path: string[]): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => stringsAt(item, path));
  if (path.length === 0) return typeof value === "string" ? [value] : [];
  if (!value || typeof value !== "object") return [];
  const [key, ...rest] = path;
  return stringsAt((value as Answer)[key as string], rest);
}

describe("every tool's declared limits", () => {
  test("hold on an answer whose every limited string is too long, and the answer stays under its budget", () => {
    const p = project();
    let checked = 0;
    let declared = 0;
    for (const definition of registry) {
      declared += Object.keys(definition.limits ?? {}).length;
      const name = toolName(definition);
      const answer = renderAnswer(definition, { answer: longStrings(definition) }, { project: p });
      assert.ok(bytes(answer) <= (definition.budget ?? MAX_ANSWER_BYTES), `${name}: ${bytes(answer)} bytes`);
      for (const [path, max] of Object.entries(definition.limits ?? {})) {
        const strings = stringsAt(answer, path.split("."));
        // The budget may have dropped the items that held it (or the last resort the field): what is left is within the limit.
        for (const text of strings) assert.ok(text.length <= max, `${name}: ${path} is ${text.length} characters, over ${max}`);
        if (strings.length) checked++;
      }
    }
    assert.ok(declared >= 20, `${declared} limits declared`);
    assert.equal(checked, declared, "every declared limit seen applied");
  });
});

describe("through every face, a declared limit is applied", () => {
  const LINE = `12:00:00 [ERROR] ${"a very long log line ".repeat(40)}the end`;
  /** A project whose dev-server log has a line longer than the logs tool's limit for its lines. */
  function withLog(): Project {
    const p = project();
    mkdirSync(join(p.root, ".opencode"), { recursive: true });
    writeFileSync(join(p.root, ".opencode", "dev-server.log"), `first line\n${LINE}\nlast line\n`);
    return p;
  }
  const logs = findTool("blog_dev_logs") as ToolDefinition;
  const max = logs.limits?.lines as number;

  function assertClipped(p: Project, answer: Answer, face: string): void {
    assertAnswerMatches(logs, answer);
    assert.ok(bytes(answer) <= MAX_ANSWER_BYTES, `${face}: ${bytes(answer)} bytes`);
    const lines = answer.lines as string[];
    assert.equal(lines.length, 3, `${face}: ${serialize(answer)}`);
    assert.equal(lines[1]?.length, max, `${face}: the long line clipped to ${max} characters`);
    assert.ok(lines[1]?.endsWith("…"), face);
    assert.deepEqual([lines[0], lines[2]], ["first line", "last line"]);
    assert.ok(reportText(p, answer).includes(LINE), `${face}: the report holds the whole line`);
  }

  test("runTool, OpenCode, MCP and the CLI", async () => {
    assert.ok(max > 0 && max < LINE.length, "the logs tool limits its lines");
    const direct = withLog();
    assertClipped(direct, await runTool(logs, {}, { project: direct }), "runTool");

    const opencode = withLog();
    const text = await openCodeTools("dev").logs?.execute({}, { directory: opencode.root } as never);
    assertClipped(opencode, JSON.parse(text as string) as Answer, "OpenCode");

    const mcp = withLog();
    const server = createMcpServer(mcp, "blog");
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "vigie-limits", version: "0.0.0" });
    try {
      await client.connect(clientSide);
      const result = await client.callTool({ name: "blog_dev_logs", arguments: {} });
      assertClipped(mcp, result.structuredContent as Answer, "MCP");
      const [content] = result.content as { type: string; text: string }[];
      assert.deepEqual(JSON.parse(content?.text ?? "{}"), result.structuredContent, "MCP: the text is the same answer");
    } finally {
      await client.close();
      await closeMcpSession(server);
    }

    const cli = withLog();
    const child = spawn(process.execPath, [MAIN, "dev_logs", "--project", cli.root], {
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 60_000,
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const [code] = (await once(child, "exit")) as [number | null];
    assert.equal(code, 0, stdout);
    assertClipped(cli, JSON.parse(stdout) as Answer, "CLI");
  });
});
