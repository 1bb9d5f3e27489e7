// The real OpenCode (the opencode-ai devDependency, a Bun binary) serving a project on a
// loopback port, with its home and XDG folders in a temporary directory; and a scripted
// model: a loopback server that speaks OpenAI chat completions, so OpenCode runs real tool
// calls without any real model.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BLOG_ROOT, freePort, killGroup } from "../../packages/vigie/test/support/blog.ts";

export const OPENCODE_BIN = join(BLOG_ROOT, "node_modules", ".bin", "opencode");
export const OPENCODE_VERSION = (
  JSON.parse(readFileSync(join(BLOG_ROOT, "node_modules", "opencode-ai", "package.json"), "utf8")) as { version: string }
).version;

const PLUGIN = "@opencode-ai/plugin";

/**
 * At start OpenCode installs @opencode-ai/plugin into every config folder (the global one
 * and the project's .opencode/) unless the folder has a node_modules/ and a
 * package-lock.json whose root lists the plugin (and every dependency of its package.json).
 * With no registry that install costs about 70 s. The tool files do not need it: they
 * import the plugin from the repository's own install. So mark it as done. In .opencode/
 * these files are git-ignored runtime files; an existing lock is left alone.
 */
export function markPluginInstalled(configDir: string): void {
  mkdirSync(join(configDir, "node_modules"), { recursive: true });
  const lock = join(configDir, "package-lock.json");
  if (existsSync(lock)) return;
  const dependencies = { [PLUGIN]: OPENCODE_VERSION };
  writeFileSync(lock, `${JSON.stringify({ lockfileVersion: 3, requires: true, packages: { "": { dependencies } } }, null, 2)}\n`);
}

/**
 * Gives a copy of the blog (under .fixtures/) the repository's OpenCode set-up: the agents
 * as they are, and the tool files with their imports of the vigie sources made absolute
 * (a relative `../../packages/vigie/...` would point nowhere from the copy; a package
 * import such as `vigie/opencode` resolves from the copy as it is and is kept).
 * The copy becomes a git repository of its own: OpenCode loads every `.opencode/` from its
 * directory up to the git worktree's root, so inside the repository's worktree it would
 * also load the repository's agents and tool files, which then win over the copy's.
 */
export function copyOpenCodeSetup(root: string): void {
  execFileSync("git", ["init", "--quiet", root], { stdio: "ignore", timeout: 30_000 });
  const from = join(BLOG_ROOT, ".opencode");
  const to = join(root, ".opencode");
  mkdirSync(join(to, "tools"), { recursive: true });
  cpSync(join(from, "agents"), join(to, "agents"), { recursive: true });
  for (const name of readdirSync(join(from, "tools"))) {
    if (!/\.(ts|js)$/.test(name)) continue;
    const source = readFileSync(join(from, "tools", name), "utf8");
    writeFileSync(join(to, "tools", name), source.replaceAll(/(["'])(?:\.\.\/)+packages\/vigie\//g, `$1${BLOG_ROOT}/packages/vigie/`));
  }
}

export interface OpenCodeServer {
  url: string;
  /** The temporary HOME (and XDG folders inside it). */
  home: string;
  /** ms from spawn to "listening". */
  startMs: number;
  output(): string;
  /** GET or POST on the server, for `directory`; rejects on a status >= 400 with the body, or after `timeoutMs` (default 120 s). */
  request<T>(method: "GET" | "POST", path: string, directory: string, body?: unknown, timeoutMs?: number): Promise<T>;
  /** The pid of `opencode serve` (the leader of its process group). */
  pid: number;
  /** Ends the whole process group (TERM, then KILL) and removes the temporary home. */
  stop(): Promise<void>;
}

/** `opencode serve` in `project` on a free loopback port; `config` goes to the global opencode.json. */
export async function startOpenCode(project: string, config: Record<string, unknown> = {}): Promise<OpenCodeServer> {
  const home = mkdtempSync(join(tmpdir(), "vigie-opencode-"));
  const configHome = join(home, ".config");
  mkdirSync(join(configHome, "opencode"), { recursive: true });
  markPluginInstalled(join(configHome, "opencode"));
  markPluginInstalled(join(project, ".opencode"));
  writeFileSync(
    join(configHome, "opencode", "opencode.json"),
    JSON.stringify({ $schema: "https://opencode.ai/config.json", autoupdate: false, share: "disabled", snapshot: false, ...config }),
  );
  const port = await freePort();
  const started = Date.now();
  const child: ChildProcess = spawn(OPENCODE_BIN, ["serve", "--port", String(port), "--hostname", "127.0.0.1"], {
    cwd: project,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: configHome,
      XDG_DATA_HOME: join(home, ".local", "share"),
      XDG_STATE_HOME: join(home, ".local", "state"),
      XDG_CACHE_HOME: join(home, ".cache"),
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      NO_COLOR: "1",
    },
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, "exit");
      killGroup(child, "SIGTERM");
      const timer = setTimeout(() => killGroup(child, "SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    // Anything left in its group (the leader may go first).
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // the group is gone
      }
    }
    rmSync(home, { recursive: true, force: true });
  };

  const request = async <T>(method: "GET" | "POST", path: string, directory: string, body?: unknown, timeoutMs = 120_000): Promise<T> => {
    const separator = path.includes("?") ? "&" : "?";
    const response = await fetch(`${url}${path}${separator}directory=${encodeURIComponent(directory)}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
    return JSON.parse(text) as T;
  };

  try {
    const deadline = Date.now() + 60_000;
    while (!output.includes("listening on")) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`opencode serve ended (${child.exitCode ?? child.signalCode}):\n${output}`);
      if (Date.now() > deadline) throw new Error(`opencode serve did not listen within 60 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, home, pid: child.pid ?? 0, startMs: Date.now() - started, output: () => output, request, stop };
}

/** One chat-completions request as the scripted model received it. */
export interface ModelRequest {
  tools: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  messages: {
    role: string;
    content?: unknown;
    tool_call_id?: string;
    tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  }[];
  stream?: boolean;
}

/** A tool call the model made and the result OpenCode sent back for it, as the model received it. */
export interface ToolResult {
  tool: string;
  args: Record<string, unknown>;
  /** The result's text as it came back (the tool's JSON answer, or OpenCode's error text). */
  content: string;
}

/** What the model does in one turn: call one tool, or answer in text (which ends the turn). */
export type ScriptStep = { tool: string; args?: Record<string, unknown> } | { text: string };

/**
 * Decides the next step from the request: the tool results received so far (in order) and
 * the request itself (e.g. the tools it offers). Called once per model turn that offers tools.
 */
export type Script = (results: ToolResult[], request: ModelRequest) => ScriptStep | Promise<ScriptStep>;

export interface ScriptedModel {
  baseURL: string;
  /** Every request received, title requests included. */
  requests: ModelRequest[];
  /** The steps the script took, one per model turn that offered tools, in order. */
  turns: ScriptStep[];
  /** When each of those turns' requests arrived, and when the script had decided (ms since the epoch). */
  turnTimes: { received: number; decided: number }[];
  /** Errors the script threw (the model then answered with their text). */
  errors: Error[];
  close(): Promise<void>;
}

function chunk(delta: Record<string, unknown>, finish: string | null): string {
  const body = {
    id: "scripted",
    object: "chat.completion.chunk",
    created: 0,
    model: "scripted",
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(finish ? { ...body, usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } } : body)}\n\n`;
}

export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((part) => (typeof part === "object" && part && "text" in part ? String(part.text) : JSON.stringify(part))).join("");
  return JSON.stringify(content ?? "");
}

/** The tool calls of a request's history, each with the result that came back for it. */
export function toolResults(request: ModelRequest): ToolResult[] {
  const calls = new Map<string, { tool: string; args: Record<string, unknown> }>();
  for (const message of request.messages) {
    for (const call of message.tool_calls ?? []) {
      let args: Record<string, unknown> = {};
      try {
        args = JSON.parse(call.function.arguments || "{}") as Record<string, unknown>;
      } catch {
        // kept empty: the call's arguments were not JSON
      }
      calls.set(call.id, { tool: call.function.name, args });
    }
  }
  return request.messages
    .filter((message) => message.role === "tool")
    .map((message) => ({
      tool: calls.get(message.tool_call_id ?? "")?.tool ?? "?",
      args: calls.get(message.tool_call_id ?? "")?.args ?? {},
      content: contentText(message.content),
    }));
}

/**
 * A model driven by `script`: a loopback server speaking OpenAI chat completions (streamed),
 * one tool call per turn, each decided by the script from the tool results received so far.
 * Requests that offer no tools (OpenCode's title request) get `title` as text.
 */
export async function startScriptedAgent(script: Script, title = "Scripted run"): Promise<ScriptedModel> {
  const requests: ModelRequest[] = [];
  const turns: ScriptStep[] = [];
  const turnTimes: { received: number; decided: number }[] = [];
  const errors: Error[] = [];
  const decide = async (body: ModelRequest): Promise<ScriptStep> => {
    if (body.tools.length === 0) return { text: title };
    const at = Date.now();
    let step: ScriptStep;
    try {
      step = await script(toolResults(body), body);
    } catch (error) {
      errors.push(error as Error);
      step = { text: `The script failed: ${(error as Error).message}` };
    }
    turns.push(step);
    turnTimes.push({ received: at, decided: Date.now() });
    return step;
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = "";
    req.on("data", (data) => (raw += data));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw) as ModelRequest;
      body.tools ??= [];
      requests.push(body);
      void decide(body).then((step) => {
        if (!body.stream) {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(
            JSON.stringify({
              id: "scripted",
              object: "chat.completion",
              created: 0,
              model: "scripted",
              choices: [{ index: 0, message: { role: "assistant", content: "text" in step ? step.text : title }, finish_reason: "stop" }],
              usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
            }),
          );
          return;
        }
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        if ("tool" in step) {
          const id = `call_${turns.length}`;
          const call = { index: 0, id, type: "function", function: { name: step.tool, arguments: JSON.stringify(step.args ?? {}) } };
          res.write(chunk({ role: "assistant", tool_calls: [call] }, null));
          res.write(chunk({}, "tool_calls"));
        } else {
          res.write(chunk({ role: "assistant", content: step.text }, null));
          res.write(chunk({}, "stop"));
        }
        res.end("data: [DONE]\n\n");
      });
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no address");
  return {
    baseURL: `http://127.0.0.1:${address.port}/v1`,
    requests,
    turns,
    turnTimes,
    errors,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A model that calls `tool` with `args` once, when the request offers it and no tool result
 * came back yet; then answers in text, quoting the tool's result. Requests with no tools
 * (OpenCode's title request) get a short text.
 */
export function startScriptedModel(tool: string, args: Record<string, unknown> = {}): Promise<ScriptedModel> {
  return startScriptedAgent((results, request) => {
    const [result] = results;
    if (result) return { text: `The tool answered: ${result.content}` };
    if (request.tools.some((entry) => entry.function.name === tool)) return { tool, args };
    return { text: "Dev server status" };
  }, "Dev server status");
}

/** The provider block of opencode.json for a scripted model at `baseURL`. */
export function scriptedProvider(baseURL: string): Record<string, unknown> {
  return {
    model: "scripted/scripted-model",
    small_model: "scripted/scripted-model",
    provider: {
      scripted: {
        npm: "@ai-sdk/openai-compatible",
        name: "Scripted",
        options: { baseURL, apiKey: "none" },
        models: { "scripted-model": { name: "Scripted model", tool_call: true, limit: { context: 200_000, output: 8_000 } } },
      },
    },
  };
}
