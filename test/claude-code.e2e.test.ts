// Claude Code (the @anthropic-ai/claude-code devDependency) as a user gets it after the
// README's `npx vigie init --mcp claude` and the approval Claude Code asks for (trust the
// folder, enable the project's server "vigie"), in a copy of the blog, driven by a stand-in
// model on loopback that speaks Anthropic's Messages API. Claude Code defers MCP tools: the
// model finds each with ToolSearch, then calls it. It starts the dev server, runs js_errors
// on a page that throws until it gets the error with its source line, stops the server and
// answers; afterwards no process of the site is left. Prints the client's version, the bytes
// of vigie's tool definitions as sent to the model, and the time to vigie's first answer.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { killEverythingIn, processesUnder } from "../packages/vigie/test/core/devServer/helpers.ts";
import { BLOG_ROOT, type BlogCopy, copyBlog, freePort } from "../packages/vigie/test/support/blog.ts";

const CLAUDE_BIN = join(BLOG_ROOT, "node_modules", ".bin", "claude");
const CLAUDE_VERSION = (
  JSON.parse(readFileSync(join(BLOG_ROOT, "node_modules", "@anthropic-ai", "claude-code", "package.json"), "utf8")) as { version: string }
).version;
const MAIN = join(BLOG_ROOT, "packages", "vigie", "src", "cli", "main.ts");
const PAGE = "src/pages/throws-for-agents.astro";
const MESSAGE = "thrown on purpose for the agent";

interface Block {
  type: string;
  id?: string;
  name?: string;
  input?: unknown;
  text?: string;
  tool_use_id?: string;
  content?: unknown;
}

interface MessagesRequest {
  stream?: boolean;
  tools?: { name: string }[];
  messages?: { role: string; content: string | Block[] }[];
}

/** A tool's result as the model received it, with the name of the tool that gave it. */
interface Result {
  name: string;
  text: string;
}

function resultsOf(request: MessagesRequest): Result[] {
  const names = new Map<string, string>();
  const results: Result[] = [];
  for (const message of request.messages ?? []) {
    if (typeof message.content === "string") continue;
    for (const block of message.content) {
      if (block.type === "tool_use" && block.id && block.name) names.set(block.id, block.name);
      if (block.type === "tool_result" && block.tool_use_id)
        results.push({ name: names.get(block.tool_use_id) ?? "", text: JSON.stringify(block.content ?? "") });
    }
  }
  return results;
}

function sse(response: ServerResponse, events: Record<string, unknown>[]): void {
  response.writeHead(200, { "content-type": "text/event-stream" });
  response.end(events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(""));
}

/** The stand-in model: one step per turn, chosen from the tool results received so far. */
function standIn(port: number) {
  const requests: MessagesRequest[] = [];
  let firstAnswerAt = 0;
  let calls = 0;
  const answer = (response: ServerResponse, request: MessagesRequest, block: Block) => {
    const message = {
      id: `msg_${requests.length}`,
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    const toolUse = block.type === "tool_use";
    if (!request.stream) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ ...message, content: [block], stop_reason: toolUse ? "tool_use" : "end_turn", stop_sequence: null }));
      return;
    }
    sse(response, [
      { type: "message_start", message: { ...message, content: [], stop_reason: null, stop_sequence: null } },
      { type: "content_block_start", index: 0, content_block: toolUse ? { ...block, input: {} } : { type: "text", text: "" } },
      {
        type: "content_block_delta",
        index: 0,
        delta: toolUse ? { type: "input_json_delta", partial_json: JSON.stringify(block.input) } : { type: "text_delta", text: block.text },
      },
      { type: "content_block_stop", index: 0 },
      {
        type: "message_delta",
        delta: { stop_reason: toolUse ? "tool_use" : "end_turn", stop_sequence: null },
        usage: { output_tokens: 1 },
      },
      { type: "message_stop" },
    ]);
  };
  const decide = (request: MessagesRequest): Block => {
    const offered = (request.tools ?? []).map((tool) => tool.name);
    if (!offered.includes("ToolSearch") && !offered.some((name) => name.startsWith("mcp__vigie__")))
      return { type: "text", text: "Checking a page." };
    const results = resultsOf(request);
    const ours = results.filter((result) => result.name.startsWith("mcp__vigie__"));
    if (ours.length > 0 && firstAnswerAt === 0) firstAnswerAt = Date.now();
    const last = ours.at(-1);
    let next: [string, Record<string, unknown>] | undefined;
    if (!last) next = ["blog_dev_start", { port }];
    else if (last.name.endsWith("dev_stop")) return { type: "text", text: "The page throws; the server is stopped." };
    else if (last.name.endsWith("dev_start") || (last.name.endsWith("js_errors") && !last.text.includes(MESSAGE) && ours.length < 5))
      next = ["blog_browser_js_errors", { path: "/throws-for-agents/" }];
    else next = ["blog_dev_stop", {}];
    const [tool, input] = next;
    const name = `mcp__vigie__${tool}`;
    calls += 1;
    // Deferred: a tool the request does not carry yet is first selected through ToolSearch.
    if (!offered.includes(name)) return { type: "tool_use", id: `toolu_${calls}`, name: "ToolSearch", input: { query: `select:${name}` } };
    return { type: "tool_use", id: `toolu_${calls}`, name, input };
  };
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = "";
    request.on("data", (chunk) => (text += chunk));
    request.on("end", () => {
      const url = request.url ?? "";
      if (url.includes("count_tokens")) {
        response.writeHead(200, { "content-type": "application/json" });
        response.end('{"input_tokens": 1}');
        return;
      }
      if (!url.startsWith("/v1/messages")) {
        response.writeHead(404, { "content-type": "application/json" });
        response.end('{"type":"error","error":{"type":"not_found_error","message":"not here"}}');
        return;
      }
      let body: MessagesRequest = {};
      try {
        body = JSON.parse(text || "{}") as MessagesRequest;
      } catch {
        // not JSON
      }
      requests.push(body);
      answer(response, body, decide(body));
    });
  });
  return { server, requests, firstAnswerAt: () => firstAnswerAt };
}

describe("Claude Code after `vigie init --mcp claude`, driven by a stand-in model", { timeout: 420_000 }, () => {
  let copy: BlogCopy | undefined;
  let home = "";
  let model: ReturnType<typeof standIn> | undefined;
  let child: ChildProcess | undefined;

  before(() => {
    copy = copyBlog("claude-code");
    writeFileSync(
      join(copy.root, PAGE),
      [
        "---",
        "---",
        '<html lang="en"><head><title>Throws</title></head><body><p>This page throws.</p>',
        "<script>",
        "  function fail(): never {",
        `    throw new Error("${MESSAGE}");`,
        "  }",
        "  fail();",
        "</script>",
        "</body></html>",
        "",
      ].join("\n"),
    );
    home = mkdtempSync(join(tmpdir(), "vigie-claude-home-"));
    // What the user's approval writes: the folder trusted, the project's server enabled.
    writeFileSync(join(home, ".claude.json"), JSON.stringify({ projects: { [copy.root]: { hasTrustDialogAccepted: true } } }));
    mkdirSync(join(copy.root, ".claude"), { recursive: true });
    writeFileSync(join(copy.root, ".claude", "settings.local.json"), JSON.stringify({ enabledMcpjsonServers: ["vigie"] }));
  });

  after(() => {
    if (child?.pid && child.exitCode === null) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    model?.server.close();
    if (copy) {
      killEverythingIn(copy);
      copy.remove();
    }
    if (home) rmSync(home, { recursive: true, force: true });
  });

  test("start, js_errors with the error and its source line, stop; nothing of the site left", async (t) => {
    assert.ok(copy);
    const init = spawn(process.execPath, [MAIN, "init", "--mcp", "claude"], { cwd: copy.root, stdio: ["ignore", "pipe", "pipe"] });
    let initOutput = "";
    init.stdout?.on("data", (chunk) => (initOutput += chunk));
    const [initCode] = (await once(init, "exit")) as [number];
    assert.equal(initCode, 0, initOutput);
    assert.match(initOutput, /\.mcp\.json/);
    assert.match(initOutput, /approve the project's MCP server "vigie"/);

    const modelPort = await freePort();
    model = standIn(await freePort());
    model.server.listen(modelPort, "127.0.0.1");
    await once(model.server, "listening");

    const started = Date.now();
    child = spawn(
      CLAUDE_BIN,
      ["-p", "Does the page /throws-for-agents/ work?", "--allowedTools", "mcp__vigie", "--output-format", "stream-json", "--verbose"],
      {
        cwd: copy.root,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          HOME: home,
          XDG_CONFIG_HOME: join(home, ".config"),
          ANTHROPIC_BASE_URL: `http://127.0.0.1:${modelPort}`,
          ANTHROPIC_API_KEY: "stand-in",
          DISABLE_AUTOUPDATER: "1",
          DISABLE_TELEMETRY: "1",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          NO_COLOR: "1",
        },
      },
    );
    let output = "";
    child.stdout?.on("data", (chunk) => (output += chunk));
    child.stderr?.on("data", (chunk) => (output += chunk));
    const exited = once(child, "exit");
    const timer = setTimeout(() => child?.pid && process.kill(-child.pid, "SIGKILL"), 300_000);
    await exited;
    clearTimeout(timer);
    const doneMs = Date.now() - started;

    const { requests } = model;
    const last = requests.filter((request) => resultsOf(request).length > 0).at(-1);
    assert.ok(last, `no tool result reached the model (${requests.length} requests)\n${output.slice(-3000)}`);
    const results = resultsOf(last).filter((result) => result.name.startsWith("mcp__vigie__"));
    const start = results.find((result) => result.name.endsWith("dev_start"));
    assert.match(start?.text ?? "", /started/, `${JSON.stringify(results).slice(0, 2000)}\n${output.slice(-3000)}`);
    assert.match(start?.text ?? "", /stopped when this MCP session ends/);
    const errors = results.filter((result) => result.name.endsWith("js_errors")).at(-1);
    assert.match(errors?.text ?? "", new RegExp(MESSAGE), errors?.text);
    assert.match(errors?.text ?? "", /throws-for-agents\.astro:\d+/, "the error's source line");
    const stop = results.find((result) => result.name.endsWith("dev_stop"));
    assert.match(stop?.text ?? "", /stopped\\*"?:true/, stop?.text);

    const deadline = Date.now() + 15_000;
    while (processesUnder(copy.root).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(processesUnder(copy.root), [], "processes left in the site");

    // The largest set of vigie's definitions one request carried (they load on demand).
    const definitions = requests.map((request) => (request.tools ?? []).filter((tool) => tool.name.startsWith("mcp__vigie__")));
    const widest = definitions.reduce((a, b) => (b.length > a.length ? b : a), []);
    const firstAnswerMs = model.firstAnswerAt() - started;
    const line =
      `Claude Code ${CLAUDE_VERSION}: ${widest.length} vigie definitions loaded on demand, ${Buffer.byteLength(JSON.stringify(widest))} bytes as sent to the model; ` +
      `first vigie answer ${firstAnswerMs} ms after the client's start; whole run ${doneMs} ms`;
    t.diagnostic(line);
    console.log(line);
  });
});
