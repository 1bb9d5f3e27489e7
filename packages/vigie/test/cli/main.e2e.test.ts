// `vigie` as a person or a CI job runs it: a real process per call, its output and exit code.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, before, describe, test } from "node:test";
import { toolName } from "../../src/tools/define.ts";
import { registry } from "../../src/tools/registry.ts";
import { type BlogCopy, copyBlog } from "../support/blog.ts";
import { html, type PageServer, startPageServer } from "../support/pages.ts";

const PACKAGE = join(import.meta.dirname, "..", "..");
const MAIN = join(PACKAGE, "src", "cli", "main.ts");
const BIN = join(PACKAGE, "bin", "vigie.js");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Every process a run starts carries this mark in its environment, Chromium included. */
const MARK = `vigie-cli-test-${process.pid}`;

async function run(args: string[], options: { cwd?: string; node?: string; entry?: string } = {}): Promise<Run> {
  const child = spawn(options.node ?? process.execPath, [options.entry ?? MAIN, ...args], {
    cwd: options.cwd ?? PACKAGE,
    env: { ...process.env, VIGIE_TEST_MARK: MARK, VIGIE_DEBUG: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  // A guard against a hung process, not a speed check.
  const guard = setTimeout(() => child.kill("SIGKILL"), 120_000);
  const [code] = (await once(child, "close")) as [number | null];
  clearTimeout(guard);
  assert.doesNotMatch(`${stdout}\n${stderr}`, /\n\s+at .+:\d+:\d+/, `no stack trace in:\n${stdout}\n${stderr}`);
  return { code, stdout, stderr };
}

/** Processes still alive that a run started (found by the mark in their environment). */
function leftovers(): string[] {
  const found: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "utf8").includes(`VIGIE_TEST_MARK=${MARK}`)) {
        found.push(`${entry} ${readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").slice(0, 80)}`);
      }
    } catch {
      // ended meanwhile, or not ours to read
    }
  }
  return found;
}

async function noLeftovers(): Promise<void> {
  // Chromium's zygotes end a moment after the browser; wait for them (guarded).
  const deadline = Date.now() + 15_000;
  while (leftovers().length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(leftovers(), [], "no process of a run outlives it");
}

const answer = (result: Run) => JSON.parse(result.stdout) as Record<string, unknown>;

describe("vigie (the command line)", () => {
  let copy: BlogCopy;
  let pages: PageServer;

  before(async () => {
    copy = copyBlog("cli");
    pages = await startPageServer();
    pages.routes.set("/broken/", { body: html('<h1>Broken</h1><script>throw new Error("thrown by the broken page")</script>', "Broken") });
  });

  after(async () => {
    await pages?.close();
    copy?.remove();
  });

  test("help says what is accepted; no command is bad usage", async () => {
    for (const word of ["help", "--help", "-h"]) {
      const help = await run([word]);
      assert.equal(help.code, 0);
      for (const part of ["vigie <tool>", "vigie list", "vigie mcp", "vigie validate", "Exit codes"])
        assert.ok(help.stdout.includes(part), part);
    }
    const none = await run([]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /Usage:/);
    const option = await run(["--frobnicate"]);
    assert.equal(option.code, 2);
    assert.match(option.stderr, /unknown option "--frobnicate"/);
  });

  test("list: one line per tool; --json as MCP lists them (what a model gets of them under 9 KB)", async () => {
    const list = await run(["list"]);
    assert.equal(list.code, 0);
    for (const name of registry.map(toolName)) assert.match(list.stdout, new RegExp(`^${name} +\\S`, "m"));
    assert.equal((await run(["tools"])).stdout, list.stdout);
    const json = await run(["list", "--json"]);
    assert.equal(json.code, 0);
    const tools = (JSON.parse(json.stdout) as { tools: { name: string; description: string; inputSchema: unknown }[] }).tools;
    assert.deepEqual(
      tools.map((tool) => tool.name),
      registry.map(toolName),
    );
    // Names, descriptions and argument schemas are what a model gets; output schemas are for the client.
    const forModel = Buffer.byteLength(
      JSON.stringify(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))),
    );
    assert.ok(forModel < 9_000, `${forModel} bytes`);
    // The whole list carries the output schemas too (the a11y answer's severity and source, the links answer's pages).
    assert.ok(Buffer.byteLength(json.stdout.trim()) < 23_040, `${Buffer.byteLength(json.stdout)} bytes`);
  });

  test("an unknown tool: exit 2, and the tools that exist", async () => {
    const unknown = await run(["teleport"]);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stdout, "");
    assert.match(unknown.stderr, /unknown tool or command "teleport"/);
    assert.match(unknown.stderr, /blog_dev_start/);
    const near = await run(["dev_statu"]);
    assert.equal(near.code, 2);
    assert.match(near.stderr, /Did you mean blog_dev_status/);
  });

  test("a tool's --help: its description and arguments", async () => {
    const help = await run(["dev", "logs", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^blog_dev_logs: /);
    assert.match(help.stdout, /--lines <integer>/);
    assert.match(help.stdout, /--level <"error"\|"warn">/);
  });

  test("bad arguments: exit 1 with the tool's JSON error naming the argument", async () => {
    const small = await run(["dev_logs", "--lines", "0"], { cwd: copy.root });
    assert.equal(small.code, 1);
    assert.match(String(answer(small).error), /"lines"/);
    assert.equal(answer(small).argument, "lines");
    const typed = await run(["blog_dev_start", "--port", "http"], { cwd: copy.root });
    assert.equal(typed.code, 1);
    assert.match(String(answer(typed).error), /"port"/);
    const unknown = await run(["dev_stop", "--force"], { cwd: copy.root });
    assert.equal(unknown.code, 1);
    assert.match(String(answer(unknown).error), /unknown argument "force"/);
  });

  test("malformed command lines: exit 2 with what is accepted", async () => {
    const stray = await run(["dev_logs", "stray"], { cwd: copy.root });
    assert.equal(stray.code, 2);
    assert.match(stray.stderr, /unexpected "stray"/);
    assert.match(stray.stderr, /--lines <integer>/);
    const json = await run(["dev_logs", "{lines: 5"], { cwd: copy.root });
    assert.equal(json.code, 2);
    assert.match(json.stderr, /JSON arguments do not parse/);
    const project = await run(["--project", join(copy.root, "nowhere"), "dev_status"]);
    assert.equal(project.code, 2);
    assert.match(project.stderr, /no such directory/);
  });

  test("a real call in a copy of the blog, by every form of the name, flags or JSON", async () => {
    for (const words of [["dev_status"], ["dev", "status"], ["blog_dev_status"], ["dev-status"]]) {
      const status = await run(words, { cwd: copy.root });
      assert.equal(status.code, 0, status.stderr);
      assert.equal(answer(status).running, false, status.stdout);
      assert.equal(status.stdout.trim().split("\n").length, 1, "one compact JSON line");
    }
    const elsewhere = await run(["dev_status", "--project", copy.root], { cwd: tmpdir() });
    assert.equal(elsewhere.code, 0, elsewhere.stderr);
    assert.equal(answer(elsewhere).running, false);
    const before = await run(["--project", copy.root, "dev_status"], { cwd: tmpdir() });
    assert.equal(before.stdout, elsewhere.stdout);
    // The answer's files, relative to the project, are said on stderr as paths from here.
    const logsElsewhere = await run(["dev_logs", "--project", copy.root], { cwd: tmpdir() });
    assert.equal((answer(logsElsewhere).files as { log: string }).log, ".opencode/dev-server.log");
    assert.ok(
      logsElsewhere.stderr.includes(`vigie: log: ${relative(tmpdir(), join(copy.root, ".opencode", "dev-server.log"))}\n`),
      logsElsewhere.stderr,
    );
    assert.equal((await run(["dev_logs"], { cwd: copy.root })).stderr, "", "nothing said when the project is here");
    // JSON arguments, and a flag that overrides them.
    const logs = await run(["dev_logs", '{"lines": 5, "level": "bogus"}', "--level", "error"], { cwd: copy.root });
    assert.notEqual(logs.code, 2, logs.stderr);
    assert.doesNotMatch(logs.stdout, /"level"/, "the flag's value was taken, not the JSON's");
  });

  test("a browser tool: the answer, exit 0, and no Chromium left once it returns", async () => {
    const result = await run(["browser_js_errors", "--path", "/broken/", "--port", String(pages.port), "--warnings=false"], {
      cwd: copy.root,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(JSON.stringify(answer(result).errors), /thrown by the broken page/);
    await noLeftovers();
  });

  test("bin/vigie.js runs the CLI, also from a Node that cannot strip types", async () => {
    const direct = await run(["dev_status"], { cwd: copy.root, entry: BIN });
    assert.equal(direct.code, 0, direct.stderr);
    assert.equal(answer(direct).running, false);
    // The system's Node (20 here) hands over to the project's node_modules/.bin/node.
    const system = ["/usr/bin/node", "/usr/local/bin/node"].find((path) => existsSync(path));
    if (!system) return;
    const old = await run(["dev_status"], { cwd: copy.root, entry: BIN, node: system });
    assert.equal(old.code, 0, old.stderr);
    assert.equal(answer(old).running, false);
    const failing = await run(["dev_logs", "--lines", "0"], { cwd: copy.root, entry: BIN, node: system });
    assert.equal(failing.code, 1, "the exit code comes through");
  });
});
