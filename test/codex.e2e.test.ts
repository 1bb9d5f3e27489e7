// Codex (the @openai/codex devDependency) as a user gets it after the README's
// `npx vigie init --mcp codex` and the `codex mcp add` line it prints (Codex starts MCP
// servers in its own home folder: the line gives the installed bin and the project's
// absolute path), in a copy of the blog, driven by a stand-in model on loopback that speaks
// OpenAI's Responses API. Codex defers MCP tools behind its tool_search (it lists a server's
// tools once the server has started, and does not wait for that before the first turn): the
// stand-in searches, waits and searches again, then calls vigie's tools in their namespace.
// It starts the dev server, runs js_errors on a page that throws
// until it gets the error with its source line, stops the server and answers; afterwards
// no process of the site is left. Prints the client's version, the bytes of vigie's tool
// definitions as sent to the model, and the time to vigie's first answer.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { killEverythingIn, processesUnder } from "../packages/vigie/test/core/devServer/helpers.ts";
import { BLOG_ROOT, type BlogCopy, copyBlog, freePort } from "../packages/vigie/test/support/blog.ts";

const CODEX_BIN = join(BLOG_ROOT, "node_modules", ".bin", "codex");
const CODEX_VERSION = (
  JSON.parse(readFileSync(join(BLOG_ROOT, "node_modules", "@openai", "codex", "package.json"), "utf8")) as { version: string }
).version;
const MAIN = join(BLOG_ROOT, "packages", "vigie", "src", "cli", "main.ts");
const PAGE = "src/pages/throws-for-agents.astro";
const MESSAGE = "thrown on purpose for the agent";

interface Item {
  type?: string;
  name?: string;
  call_id?: string;
  output?: unknown;
}

interface ResponsesRequest {
  tools?: { type: string; name?: string }[];
  input?: Item[];
}

interface Result {
  name: string;
  text: string;
}

function resultsOf(request: ResponsesRequest): Result[] {
  const names = new Map<string, string>();
  const results: Result[] = [];
  for (const item of request.input ?? []) {
    if (item.type === "function_call" && item.call_id && item.name) names.set(item.call_id, item.name);
    if (item.type === "function_call_output" && item.call_id)
      results.push({ name: names.get(item.call_id) ?? "", text: JSON.stringify(item.output ?? "") });
  }
  return results;
}

/** The stand-in model: one step per turn, chosen from the tool results received so far. */
function standIn(port: number) {
  const requests: ResponsesRequest[] = [];
  let firstAnswerAt = 0;
  let calls = 0;
  let vigieTools: Item | undefined;
  const reply = (response: ServerResponse, item: Record<string, unknown>) => {
    const id = `resp_${requests.length}`;
    const events = [
      { type: "response.created", response: { id } },
      { type: "response.output_item.added", output_index: 0, item },
      { type: "response.output_item.done", output_index: 0, item },
      {
        type: "response.completed",
        response: {
          id,
          usage: { input_tokens: 1, input_tokens_details: null, output_tokens: 1, output_tokens_details: null, total_tokens: 2 },
        },
      },
    ];
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.end(events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(""));
  };
  const text = (value: string) => ({
    type: "message",
    role: "assistant",
    id: `msg_${requests.length}`,
    content: [{ type: "output_text", text: value, annotations: [] }],
  });
  const decide = (request: ResponsesRequest): Record<string, unknown> => {
    const offered = (request.tools ?? []).map((tool) => tool.type);
    if (!offered.includes("tool_search") && !(request.tools ?? []).some((tool) => /blog_/.test(tool.name ?? "")))
      return text("Checking a page.");
    const input = request.input ?? [];
    // Codex defers MCP tools: the model finds them with tool_search (executed by Codex),
    // which lists a server's tools once it has started; until then, it waits and searches again.
    const found = input.find((item) => item.type === "tool_search_output" && JSON.stringify(item).includes("blog_dev_start"));
    if (found && !vigieTools) vigieTools = found;
    calls += 1;
    if (!found) {
      const searches = input.filter((item) => item.type === "tool_search_call").length;
      if (searches >= 8) return text("vigie's tools never appeared.");
      if (input.at(-1)?.type === "tool_search_output")
        return {
          type: "function_call",
          id: `fc_${calls}`,
          call_id: `call_${calls}`,
          name: "exec_command",
          arguments: JSON.stringify({ cmd: "sleep 3" }),
        };
      return {
        type: "tool_search_call",
        id: `ts_${calls}`,
        call_id: `ts_${calls}`,
        execution: "client",
        status: "completed",
        arguments: { query: "vigie blog_dev_start blog_browser_js_errors blog_dev_stop dev server", limit: 20 },
      };
    }
    const ours = resultsOf(request).filter((result) => /blog_/.test(result.name));
    if (ours.length > 0 && firstAnswerAt === 0) firstAnswerAt = Date.now();
    const last = ours.at(-1);
    let next: [string, Record<string, unknown>];
    if (!last) next = ["dev_start", { port }];
    else if (last.name.endsWith("dev_stop")) return text("The page throws; the server is stopped.");
    else if (last.name.endsWith("dev_start") || (last.name.endsWith("js_errors") && !last.text.includes(MESSAGE) && ours.length < 5))
      next = ["browser_js_errors", { path: "/throws-for-agents/" }];
    else next = ["dev_stop", {}];
    const [tool, args] = next;
    return {
      type: "function_call",
      id: `fc_${calls}`,
      call_id: `call_${calls}`,
      namespace: "mcp__vigie",
      name: `blog_${tool}`,
      arguments: JSON.stringify(args),
    };
  };
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      if (!(request.url ?? "").includes("/responses")) {
        response.writeHead(404, { "content-type": "application/json" });
        response.end('{"error":{"message":"not here"}}');
        return;
      }
      let parsed: ResponsesRequest = {};
      try {
        parsed = JSON.parse(body || "{}") as ResponsesRequest;
      } catch {
        // not JSON
      }
      requests.push(parsed);
      reply(response, decide(parsed));
    });
  });
  return { server, requests, firstAnswerAt: () => firstAnswerAt, vigieTools: () => vigieTools };
}

describe("Codex after `vigie init --mcp codex`, driven by a stand-in model", { timeout: 420_000 }, () => {
  let copy: BlogCopy | undefined;
  let home = "";
  let model: ReturnType<typeof standIn> | undefined;
  let child: ChildProcess | undefined;

  before(() => {
    copy = copyBlog("codex");
    // A site installed from npm has node_modules/.bin/vigie: the copy borrows the repository's.
    symlinkSync(join(BLOG_ROOT, "node_modules"), join(copy.root, "node_modules"));
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
    home = mkdtempSync(join(tmpdir(), "vigie-codex-home-"));
    mkdirSync(join(home, ".codex"));
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
    const env = {
      ...process.env,
      PATH: `${join(BLOG_ROOT, "node_modules", ".bin")}:${process.env.PATH}`,
      HOME: home,
      CODEX_HOME: join(home, ".codex"),
      FAKE_KEY: "stand-in",
      NO_COLOR: "1",
    };
    const run = async (command: string, args: string[], cwd: string) => {
      const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout?.on("data", (chunk) => (output += chunk));
      child.stderr?.on("data", (chunk) => (output += chunk));
      const [code] = (await once(child, "exit")) as [number];
      return { code, output };
    };
    const init = await run(process.execPath, [MAIN, "init", "--mcp", "codex"], copy.root);
    assert.equal(init.code, 0, init.output);
    const line = init.output.split("\n").find((entry) => entry.trim().startsWith("codex mcp add"));
    assert.ok(line, init.output);
    // The line as the user runs it (the paths here need no quoting).
    const [, ...words] = line.trim().split(/\s+/);
    const added = await run(CODEX_BIN, words, home);
    assert.equal(added.code, 0, added.output);

    const modelPort = await freePort();
    model = standIn(await freePort());
    model.server.listen(modelPort, "127.0.0.1");
    await once(model.server, "listening");

    const started = Date.now();
    child = spawn(
      CODEX_BIN,
      [
        "exec",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "-c",
        "model_provider=fake",
        "-c",
        "model=gpt-5.5",
        "-c",
        `model_providers.fake={name="fake",base_url="http://127.0.0.1:${modelPort}/v1",wire_api="responses",env_key="FAKE_KEY"}`,
        "Does the page /throws-for-agents/ work?",
      ],
      { cwd: copy.root, detached: true, stdio: ["ignore", "pipe", "pipe"], env },
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
    const tail = JSON.stringify(requests.at(-1)?.input?.slice(-3)).slice(0, 1500);
    assert.ok(last, `no tool result reached the model (${requests.length} requests; the last items: ${tail})\n${output.slice(-3000)}`);
    const results = resultsOf(last).filter((result) => /blog_/.test(result.name));
    const start = results.find((result) => result.name.endsWith("dev_start"));
    assert.match(start?.text ?? "", /started/, `${JSON.stringify(results).slice(0, 2000)} the last items: ${tail}\n${output.slice(-3000)}`);
    assert.match(start?.text ?? "", /stopped when this MCP session ends/);
    const errors = results.filter((result) => result.name.endsWith("js_errors")).at(-1);
    assert.match(errors?.text ?? "", new RegExp(MESSAGE), errors?.text);
    assert.match(errors?.text ?? "", /throws-for-agents\.astro:\d+/, "the error's source line");
    const stop = results.find((result) => result.name.endsWith("dev_stop"));
    assert.match(stop?.text ?? "", /stopped\\*"?:true/, stop?.text);

    const deadline = Date.now() + 15_000;
    while (processesUnder(copy.root).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(processesUnder(copy.root), [], "processes left in the site");

    const namespace = (model.vigieTools() as { tools?: { name?: string; tools?: unknown[] }[] } | undefined)?.tools?.find(
      (entry) => entry.name === "mcp__vigie",
    );
    const ours = namespace?.tools ?? [];
    const firstAnswerMs = model.firstAnswerAt() - started;
    const figure =
      `Codex ${CODEX_VERSION}: ${ours.length} vigie definitions, ${Buffer.byteLength(JSON.stringify(ours))} bytes as sent to the model; ` +
      `first vigie answer ${firstAnswerMs} ms after the client's start; whole run ${doneMs} ms`;
    t.diagnostic(figure);
    console.log(figure);
  });
});
