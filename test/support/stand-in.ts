// A stand-in model for the agents the tests drive (Claude Code, Gemini CLI, Codex): a loopback
// HTTP server that speaks the client's model API, logs every request (the tool definitions the
// client sends, the tool results it sends back) and answers each turn with the next step of
// one script: start the dev server, run js_errors on a page that throws until the answer has
// the error, stop the server, answer in text. Also the page, the agent's process, and the
// checks every agent test makes of what came back and of what is left running.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, realpathSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { delimiter, dirname } from "node:path";
import { processesUnder } from "../../packages/vigie/test/core/devServer/helpers.ts";

/** The page that throws, and what it throws: the script runs js_errors on it. */
export const THROWING_PAGE = {
  file: "src/pages/throws-for-agents.astro",
  path: "/throws-for-agents/",
  message: "thrown on purpose for the agent",
  text: [
    "---",
    "---",
    '<html lang="en"><head><title>Throws</title></head><body><p>This page throws.</p>',
    "<script>",
    "  function fail(): never {",
    '    throw new Error("thrown on purpose for the agent");',
    "  }",
    "  fail();",
    "</script>",
    "</body></html>",
    "",
  ].join("\n"),
};

/** A tool's result as the model received it: the tool's name as the client gave it, and the result's text. */
export interface Result {
  name: string;
  text: string;
}

/** One step of the model: a vigie tool by its name without prefix (`dev_start`), or a text answer that ends the turn. */
export type Step = { tool: string; args: Record<string, unknown> } | { text: string };

/**
 * The script, from vigie's results so far (in order): dev_start on `port` (2 min to be ready), js_errors on the
 * page until its answer has the error (5 results at most), then dev_stop (unless `stop` is
 * false: the agent then leaves with the server running), then a text answer.
 */
export function checkPageScript(port: number, options: { stop?: boolean } = {}): (results: Result[]) => Step {
  const stop = options.stop ?? true;
  return (results) => {
    const last = results.at(-1);
    // A loaded 2-core machine may need more than the default 30 s to get a dev server ready.
    if (!last) return { tool: "dev_start", args: { port, timeoutMs: 120_000 } };
    if (last.name.endsWith("dev_stop")) return { text: "The page throws; the server is stopped." };
    const found = last.name.endsWith("js_errors") && last.text.includes(THROWING_PAGE.message);
    if (last.name.endsWith("dev_start") || (last.name.endsWith("js_errors") && !found && results.length < 5))
      return { tool: "browser_js_errors", args: { path: THROWING_PAGE.path } };
    return stop ? { tool: "dev_stop", args: {} } : { text: "The page throws." };
  };
}

/** What every agent test asserts of vigie's results: started (and for how long), the error with its source line, stopped. */
export function assertCheckedPage(results: Result[], expected: { lifetime: RegExp; stopped?: boolean }, shown = ""): void {
  const text = (suffix: string) => results.filter((result) => result.name.endsWith(suffix)).at(-1)?.text ?? "";
  const all = `${JSON.stringify(results).slice(0, 2500)}\n${shown.slice(-3000)}`;
  assert.match(text("dev_start"), /started/, all);
  assert.match(text("dev_start"), expected.lifetime, all);
  assert.match(text("js_errors"), new RegExp(THROWING_PAGE.message), all);
  assert.match(text("js_errors"), /throws-for-agents\.astro:\d+/, "the error's source line");
  if (expected.stopped ?? true) assert.match(text("dev_stop"), /\\*"stopped\\*":true/, all);
}

/** Waits up to 20 s for every process working inside `root` (dev server, `vigie mcp`, Chromium) to be gone, then asserts it. */
export async function assertNothingLeftIn(root: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (processesUnder(root).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  const left = processesUnder(root).map((pid) => `${pid} ${commandOf(pid)}`);
  assert.deepEqual(left, [], "processes left in the site");
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "(ended)";
  }
}

/**
 * An agent's environment as a user's shell has it: a Node of its own on the PATH (this
 * process's, 24) and nothing of this repository's node_modules/.bin (no vigie but the site's).
 */
export function userEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const path = (process.env.PATH ?? "").split(delimiter).filter((entry) => entry && !entry.includes("node_modules"));
  return {
    ...process.env,
    PATH: [dirname(realpathSync(process.execPath)), ...path].join(delimiter),
    NO_COLOR: "1",
    ASTRO_TELEMETRY_DISABLED: "1",
    ...extra,
  };
}

/** Runs an agent's binary in its own process group until it exits (KILL after `timeoutMs`); its output and duration. */
export async function runAgent(
  bin: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<{ output: string; ms: number; code: number | null }> {
  const started = Date.now();
  const child: ChildProcess = spawn(bin, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const exited = once(child, "exit") as Promise<[number | null]>;
  const kill = () => {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // gone
    }
  };
  const timer = setTimeout(kill, options.timeoutMs ?? 300_000);
  try {
    const [code] = await exited;
    return { output, ms: Date.now() - started, code };
  } finally {
    clearTimeout(timer);
    kill();
  }
}

export interface StandIn {
  port: number;
  /** Every model request received, as parsed JSON. */
  requests: unknown[];
  /** When the first of vigie's results reached the model (ms since the epoch), 0 before. */
  firstAnswerAt(): number;
  close(): Promise<void>;
}

/** Answers one request; `mark` records that one of vigie's results has reached the model. */
type Reply = (response: ServerResponse, url: string, body: unknown, mark: () => void) => void;

/** A loopback server that parses each body as JSON and hands it to `reply`; the requests `logged` picks are kept. */
async function serve(reply: Reply, logged: (url: string) => boolean): Promise<StandIn> {
  const requests: unknown[] = [];
  let firstAnswerAt = 0;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = "";
    request.on("data", (chunk) => (text += chunk));
    request.on("end", () => {
      const url = request.url ?? "";
      let body: unknown = {};
      try {
        body = JSON.parse(text || "{}");
      } catch {
        // not JSON
      }
      if (logged(url)) requests.push(body);
      reply(response, url, body, () => {
        firstAnswerAt ||= Date.now();
      });
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("the stand-in model has no port");
  return {
    port: address.port,
    requests,
    firstAnswerAt: () => firstAnswerAt,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(typeof body === "string" ? body : JSON.stringify(body));
}

function sse(response: ServerResponse, events: ({ type: string } & Record<string, unknown>)[]): void {
  response.writeHead(200, { "content-type": "text/event-stream" });
  response.end(events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(""));
}

// ---------------------------------------------------------------- Claude Code: Anthropic's Messages API

interface Block {
  type: string;
  id?: string;
  name?: string;
  input?: unknown;
  text?: string;
  tool_use_id?: string;
  content?: unknown;
}

export interface MessagesRequest {
  stream?: boolean;
  system?: unknown;
  tools?: { name: string }[];
  messages?: { role: string; content: string | Block[] }[];
}

/** The tool results of a Messages request, each with the name of the tool that gave it. */
export function messagesResults(request: MessagesRequest): Result[] {
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

/**
 * Claude Code's model. Claude Code defers MCP tools: a tool the request does not carry yet is
 * first selected through ToolSearch (`select:mcp__vigie__<tool>`), then called.
 */
export async function claudeStandIn(script: (results: Result[]) => Step): Promise<StandIn> {
  let calls = 0;
  let searches = 0;
  const decide = (request: MessagesRequest, mark: () => void): Block => {
    const offered = (request.tools ?? []).map((tool) => tool.name);
    if (!offered.includes("ToolSearch") && !offered.some((name) => name.startsWith("mcp__vigie__")))
      return { type: "text", text: "Checking a page." };
    const ours = messagesResults(request).filter((result) => result.name.startsWith("mcp__vigie__"));
    if (ours.length > 0) mark();
    const step = script(ours);
    if ("text" in step) return { type: "text", text: step.text };
    const name = `mcp__vigie__blog_${step.tool}`;
    calls += 1;
    if (!offered.includes(name)) {
      if (++searches > 10) return { type: "text", text: "vigie's tools never appeared." };
      return { type: "tool_use", id: `toolu_${calls}`, name: "ToolSearch", input: { query: `select:${name}` } };
    }
    return { type: "tool_use", id: `toolu_${calls}`, name, input: step.args };
  };
  return serve(
    (response, url, body, mark) => {
      if (url.includes("count_tokens")) return json(response, 200, '{"input_tokens": 1}');
      if (!url.startsWith("/v1/messages"))
        return json(response, 404, '{"type":"error","error":{"type":"not_found_error","message":"not here"}}');
      const request = body as MessagesRequest;
      const block = decide(request, mark);
      const toolUse = block.type === "tool_use";
      const message = { id: `msg_${calls}`, type: "message", role: "assistant", model: "claude-sonnet-4-5" };
      const usage = { input_tokens: 1, output_tokens: 1 };
      const stop_reason = toolUse ? "tool_use" : "end_turn";
      if (!request.stream) return json(response, 200, { ...message, usage, content: [block], stop_reason, stop_sequence: null });
      sse(response, [
        { type: "message_start", message: { ...message, usage, content: [], stop_reason: null, stop_sequence: null } },
        { type: "content_block_start", index: 0, content_block: toolUse ? { ...block, input: {} } : { type: "text", text: "" } },
        {
          type: "content_block_delta",
          index: 0,
          delta: toolUse
            ? { type: "input_json_delta", partial_json: JSON.stringify(block.input) }
            : { type: "text_delta", text: block.text },
        },
        { type: "content_block_stop", index: 0 },
        { type: "message_delta", delta: { stop_reason, stop_sequence: null }, usage: { output_tokens: 1 } },
        { type: "message_stop" },
      ]);
    },
    (url) => url.startsWith("/v1/messages") && !url.includes("count_tokens"),
  );
}

// ---------------------------------------------------------------- Gemini CLI: Gemini's generateContent

export interface Part {
  text?: string;
  functionCall?: { name: string; args: Record<string, unknown> };
  functionResponse?: { name: string; response: unknown };
}

export interface GeminiRequest {
  contents?: { role: string; parts: Part[] }[];
  tools?: { functionDeclarations?: { name: string }[] }[];
}

/** The function responses of a Gemini request, in order. */
export function geminiResults(request: GeminiRequest): Result[] {
  return (request.contents ?? [])
    .flatMap((content) => content.parts)
    .filter((part) => part.functionResponse)
    .map((part) => ({ name: part.functionResponse?.name ?? "", text: JSON.stringify(part.functionResponse?.response ?? "") }));
}

/**
 * Gemini CLI's model. Gemini CLI declares vigie's tools as `mcp_vigie_blog_*` with a
 * `wait_for_previous` parameter of its own, which the stand-in fills in as a model does.
 */
export async function geminiStandIn(script: (results: Result[]) => Step): Promise<StandIn> {
  const decide = (request: GeminiRequest, mark: () => void): Part[] => {
    const declared = (request.tools ?? []).flatMap((tool) => tool.functionDeclarations ?? []).map((entry) => entry.name);
    const vigie = (name: string) => declared.find((entry) => entry.endsWith(`blog_${name}`));
    // Gemini CLI's own requests without vigie's tools (its next-speaker check) get its expected JSON.
    if (!vigie("dev_start")) return [{ text: '{"reasoning": "done", "next_speaker": "user"}' }];
    const results = geminiResults(request);
    if (results.length > 0) mark();
    const step = script(results);
    if ("text" in step) return [{ text: step.text }];
    return [{ functionCall: { name: vigie(step.tool) ?? step.tool, args: { ...step.args, wait_for_previous: true } } }];
  };
  return serve(
    (response, url, body, mark) => {
      if (url.includes(":countTokens")) return json(response, 200, '{"totalTokens": 1}');
      if (!/generateContent/i.test(url)) return json(response, 200, "{}");
      const parts = decide(body as GeminiRequest, mark);
      const answer = {
        candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
        usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
        modelVersion: "gemini-2.5-flash",
      };
      if (!url.includes("streamGenerateContent")) return json(response, 200, answer);
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(`data: ${JSON.stringify(answer)}\r\n\r\n`);
    },
    (url) => /generateContent/i.test(url),
  );
}

// ---------------------------------------------------------------- Codex: OpenAI's Responses API

interface Item {
  type?: string;
  name?: string;
  call_id?: string;
  output?: unknown;
  tools?: { name?: string; tools?: unknown[] }[];
}

export interface ResponsesRequest {
  tools?: { type: string; name?: string }[];
  input?: Item[];
}

/** The function call outputs of a Responses request, each with its call's name. */
export function responsesResults(request: ResponsesRequest): Result[] {
  const names = new Map<string, string>();
  const results: Result[] = [];
  for (const item of request.input ?? []) {
    if (item.type === "function_call" && item.call_id && item.name) names.set(item.call_id, item.name);
    if (item.type === "function_call_output" && item.call_id)
      results.push({ name: names.get(item.call_id) ?? "", text: JSON.stringify(item.output ?? "") });
  }
  return results;
}

/** vigie's tool definitions as Codex's tool_search gave them to the model (the `mcp__vigie` namespace), if it did. */
export function codexVigieTools(request: ResponsesRequest): unknown[] | undefined {
  const found = (request.input ?? []).find((item) => item.type === "tool_search_output" && JSON.stringify(item).includes("blog_dev_start"));
  return found?.tools?.find((entry) => entry.name === "mcp__vigie")?.tools;
}

/**
 * Codex's model. Codex defers MCP tools behind its tool_search, which lists a server's tools
 * once the server has started (Codex does not wait for that before the first turn): the
 * stand-in searches, waits (`sleep 3` through exec_command) and searches again, then calls
 * vigie's tools in their namespace.
 */
export async function codexStandIn(script: (results: Result[]) => Step): Promise<StandIn> {
  let calls = 0;
  const text = (value: string) => ({
    type: "message",
    role: "assistant",
    id: `msg_${calls}`,
    content: [{ type: "output_text", text: value, annotations: [] }],
  });
  const decide = (request: ResponsesRequest, mark: () => void): Record<string, unknown> => {
    calls += 1;
    const offered = (request.tools ?? []).map((tool) => tool.type);
    if (!offered.includes("tool_search") && !(request.tools ?? []).some((tool) => /blog_/.test(tool.name ?? "")))
      return text("Checking a page.");
    const input = request.input ?? [];
    if (!codexVigieTools(request)) {
      if (input.filter((item) => item.type === "tool_search_call").length >= 8) return text("vigie's tools never appeared.");
      if (input.at(-1)?.type === "tool_search_output")
        return { type: "function_call", id: `fc_${calls}`, call_id: `call_${calls}`, name: "exec_command", arguments: '{"cmd":"sleep 3"}' };
      return {
        type: "tool_search_call",
        id: `ts_${calls}`,
        call_id: `ts_${calls}`,
        execution: "client",
        status: "completed",
        arguments: { query: "vigie blog_dev_start blog_browser_js_errors blog_dev_stop dev server", limit: 20 },
      };
    }
    const ours = responsesResults(request).filter((result) => /blog_/.test(result.name));
    if (ours.length > 0) mark();
    const step = script(ours);
    if ("text" in step) return text(step.text);
    return {
      type: "function_call",
      id: `fc_${calls}`,
      call_id: `call_${calls}`,
      namespace: "mcp__vigie",
      name: `blog_${step.tool}`,
      arguments: JSON.stringify(step.args),
    };
  };
  return serve(
    (response, url, body, mark) => {
      if (!url.includes("/responses")) return json(response, 404, '{"error":{"message":"not here"}}');
      const item = decide(body as ResponsesRequest, mark);
      const id = `resp_${calls}`;
      const usage = { input_tokens: 1, input_tokens_details: null, output_tokens: 1, output_tokens_details: null, total_tokens: 2 };
      sse(response, [
        { type: "response.created", response: { id } },
        { type: "response.output_item.added", output_index: 0, item },
        { type: "response.output_item.done", output_index: 0, item },
        { type: "response.completed", response: { id, usage } },
      ]);
    },
    (url) => url.includes("/responses"),
  );
}
