// The validator's workflow driven end to end through the real OpenCode: `opencode serve` in a
// copy of the blog, the blog-validator agent (a subagent: `opencode run --agent` refuses
// those and falls back to the default agent, so the session is made through the server's
// API, as a primary agent's task call would), and a scripted model that takes one tool call
// per turn, each decided from the results received so far. OpenCode's own environment is
// the agent's one (it sets OPENCODE=1 and AGENT=1 for itself and the tools it runs): the
// test removes no variable. Everything is checked from what the model received.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { isPortFree } from "../packages/vigie/src/core/devServer/ports.ts";
import { killEverythingIn, processesUnder, waitFor } from "../packages/vigie/test/core/devServer/helpers.ts";
import { type BlogCopy, copyBlog } from "../packages/vigie/test/support/blog.ts";
import {
  copyOpenCodeSetup,
  type OpenCodeServer,
  type ScriptedModel,
  type ScriptStep,
  scriptedProvider,
  startOpenCode,
  startScriptedAgent,
  type ToolResult,
  toolResults,
} from "./support/opencode.ts";

/** The whole turn (status, start, lint, two GETs, a page in Chromium, perf, stop) on a busy 2-core machine. */
const TURN_TIMEOUT_MS = 300_000;

/** Markers of an agent's environment (am-i-vibing's, for the agents of issue 9). */
const AGENT_MARKERS = ["OPENCODE", "AGENT", "CLAUDECODE", "CODEX_THREAD_ID", "CURSOR_AGENT"];

type Json = Record<string, unknown>;

function parse(result: ToolResult | undefined): Json {
  if (!result) return {};
  try {
    return JSON.parse(result.content) as Json;
  } catch {
    return { unparsed: result.content.slice(0, 300) };
  }
}

/** Every process below `pid`. */
function descendants(pid: number): Set<number> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // ended meanwhile
    }
  }
  const below = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [child, parent] of parents) {
      if (below.has(parent) && !below.has(child)) {
        below.add(child);
        grew = true;
      }
    }
  }
  return below;
}

/** The agent markers in a process's environment as it was started ("" when unreadable). */
function markersOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/environ`, "utf8")
      .split("\0")
      .filter((entry) => AGENT_MARKERS.includes(entry.split("=")[0] ?? ""))
      .join(" ");
  } catch {
    return "";
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "(ended)";
  }
}

/** What the test saw itself while the model was being driven. */
interface Observed {
  /** The status of GET / on the port start answered, fetched by the test when start's answer reached the model. */
  startPortStatus?: number | string;
  /** The agent markers in the environment of the server's process group leader. */
  serverMarkers?: string;
}

/**
 * The validator's workflow, one tool per turn: status, start when nothing runs, lint,
 * GET / and /en/, js_errors on /, perf, one call with a bad argument, stop what it
 * started, then a verdict. A failed start skips the steps that need a server, as the
 * agent's own workflow says.
 */
function validatorScript(observed: Observed) {
  return async (results: ToolResult[]): Promise<ScriptStep> => {
    const last = results.at(-1);
    const done = results.map((result) => result.tool);
    const status = parse(results.find((result) => result.tool === "blog_dev_status"));
    const start = parse(results.find((result) => result.tool === "blog_dev_start"));
    const reused = status.running === true && status.healthy === true;
    const serverUp = reused || start.status === "started" || start.status === "already_running";

    if (last?.tool === "blog_dev_start" && typeof start.port === "number") {
      try {
        const response = await fetch(`http://127.0.0.1:${start.port}/`, { signal: AbortSignal.timeout(60_000) });
        observed.startPortStatus = response.status;
        await response.arrayBuffer();
      } catch (error) {
        observed.startPortStatus = (error as Error).message;
      }
      if (typeof start.pid === "number") observed.serverMarkers = markersOf(start.pid);
    }

    if (results.length === 0) return { tool: "blog_dev_status" };
    // A longer readiness wait than the default 30 s: a busy 2-core machine, as the tool's own hint advises.
    if (!done.includes("blog_dev_start") && !reused) return { tool: "blog_dev_start", args: { timeoutMs: 120_000 } };
    if (!done.includes("blog_build_lint")) return { tool: "blog_build_lint" };
    if (serverUp) {
      const gets = results.filter((result) => result.tool === "blog_dev_http_get").map((result) => result.args.path);
      if (!gets.includes("/")) return { tool: "blog_dev_http_get", args: { path: "/" } };
      if (!gets.includes("/en/")) return { tool: "blog_dev_http_get", args: { path: "/en/" } };
      if (!done.includes("blog_browser_js_errors")) return { tool: "blog_browser_js_errors", args: { path: "/" } };
      if (!done.includes("blog_browser_perf")) return { tool: "blog_browser_perf", args: { path: "/" } };
    }
    if (!done.includes("blog_dev_logs")) return { tool: "blog_dev_logs", args: { level: "fatal" } };
    if (!reused && serverUp && !done.includes("blog_dev_stop")) return { tool: "blog_dev_stop" };

    const findings = results
      .filter((result) => result.tool !== "blog_dev_logs" && (parse(result).error !== undefined || parse(result).status === "failed"))
      .map((result, index) => `${index + 1}. [FAIL] ${result.tool}\n   Evidence: ${result.content.slice(0, 200)}`);
    return {
      text: `VERDICT: ${findings.length ? "FAIL" : "PASS"}\n\n${findings.join("\n")}\nServer: ${reused ? "reused" : "started and stopped (dev)"}`,
    };
  };
}

interface Message {
  info: { role: string };
  parts: { type: string; text?: string; tool?: string; state?: { status: string; error?: string } }[];
}

describe("the blog-validator agent driven through the real OpenCode", () => {
  let copy: BlogCopy;
  let model: ScriptedModel;
  let opencode: OpenCodeServer | undefined;
  const observed: Observed = {};
  let port: number | undefined;

  before(async () => {
    copy = copyBlog("validator-agent");
    copyOpenCodeSetup(copy.root);
    model = await startScriptedAgent(validatorScript(observed), "Blog validation");
    opencode = await startOpenCode(copy.root, scriptedProvider(model.baseURL));
    console.log(`opencode serve listening after ${opencode.startMs} ms`);
  });

  after(async () => {
    await opencode?.stop();
    await model?.close();
    if (copy) {
      killEverythingIn(copy);
      copy.remove();
    }
  });

  test("one session runs the workflow; each answer comes back and says what it should", async () => {
    assert.ok(opencode);
    const started = Date.now();
    const session = await opencode.request<{ id: string }>("POST", "/session", copy.root, {});
    // Answers when the turn is over: every tool call, then the verdict.
    await opencode.request(
      "POST",
      `/session/${session.id}/message`,
      copy.root,
      {
        agent: "blog-validator",
        model: { providerID: "scripted", modelID: "scripted-model" },
        parts: [{ type: "text", text: "Validate the blog." }],
      },
      TURN_TIMEOUT_MS,
    );
    const turnMs = Date.now() - started;
    assert.deepEqual(model.errors, [], "the script ran without error");

    const withTools = model.requests.filter((request) => request.tools.length > 0);
    const lastRequest = withTools.at(-1);
    assert.ok(lastRequest, `the model got no request with tools: ${model.requests.length} requests\n${opencode.output().slice(-2000)}`);
    const results = toolResults(lastRequest);
    console.log(`turn: ${turnMs} ms, ${withTools.length} model turns, ${results.length} tool calls`);
    // A tool's time as the model sees it: from its call to the next request (OpenCode's overhead included,
    // the test's own checks between turns left out).
    for (const [index, result] of results.entries()) {
      const ms = (model.turnTimes[index + 1]?.received ?? Date.now()) - (model.turnTimes[index]?.decided ?? started);
      console.log(
        `  ${result.tool} ${JSON.stringify(result.args)}: ${Buffer.byteLength(result.content)} bytes, ${ms} ms: ${result.content.slice(0, 200)}`,
      );
    }
    console.log(`agent markers in the dev server's environment: ${observed.serverMarkers || "(none)"}`);
    const report = results.map((result) => `${result.tool} ${JSON.stringify(result.args)} -> ${result.content.slice(0, 400)}`).join("\n");

    // What the model was offered: the blog_* tools, nothing that writes or runs a shell.
    const names = (withTools[0]?.tools ?? []).map((entry) => entry.function.name);
    assert.ok(names.filter((name) => name.startsWith("blog_")).length === 16, `the sixteen blog_* tools offered: ${names.join(", ")}`);
    for (const tool of ["bash", "edit", "write", "apply_patch", "task", "webfetch"])
      assert.ok(!names.includes(tool), `${tool} not offered`);

    // The workflow, in order, one tool per turn, then the verdict.
    assert.deepEqual(
      results.map((result) => result.tool),
      [
        "blog_dev_status",
        "blog_dev_start",
        "blog_build_lint",
        "blog_dev_http_get",
        "blog_dev_http_get",
        "blog_browser_js_errors",
        "blog_browser_perf",
        "blog_dev_logs",
        "blog_dev_stop",
      ],
      report,
    );
    assert.equal(withTools.length, results.length + 1, "one model turn per tool call, and one for the verdict");
    const byTool = (tool: string, index = 0) => parse(results.filter((result) => result.tool === tool)[index]);

    assert.equal(byTool("blog_dev_status").running, false, report);

    const start = byTool("blog_dev_start");
    assert.equal(start.status, "started", report);
    assert.equal(typeof start.port, "number", report);
    port = start.port as number;
    assert.equal(observed.startPortStatus, 200, `GET / on the port start answered (${port})`);

    const lint = byTool("blog_build_lint");
    assert.equal(lint.error, undefined, report);
    assert.ok(Object.keys(lint).length > 0, report);

    for (const [index, path] of ["/", "/en/"].entries()) {
      const get = byTool("blog_dev_http_get", index);
      assert.equal(get.status, 200, `GET ${path}\n${report}`);
    }

    const jsErrors = byTool("blog_browser_js_errors");
    assert.equal(jsErrors.status, 200, report);
    assert.deepEqual(jsErrors.errors, [], report);
    assert.deepEqual(jsErrors.failedRequests, [], report);
    assert.equal(jsErrors.mermaid, undefined, report);

    const perf = byTool("blog_browser_perf");
    assert.equal(perf.error, undefined, report);
    assert.equal(perf.path, "/", report);

    const bad = byTool("blog_dev_logs");
    assert.match(String(bad.error), /level/, report);
    assert.ok(typeof bad.hint === "string" && bad.hint.length > 0, `the bad argument's answer has a hint\n${report}`);

    const stop = byTool("blog_dev_stop");
    assert.equal(stop.stopped, true, report);

    // Every answer as the model received it stays under 2 KB.
    for (const result of results) assert.ok(Buffer.byteLength(result.content) <= 2048, `${result.tool}: ${result.content.length} chars`);

    // The verdict came back into the session as the agent's last text.
    const messages = await opencode.request<Message[]>("GET", `/session/${session.id}/message`, copy.root);
    const texts = messages
      .filter((message) => message.info.role === "assistant")
      .flatMap((message) => message.parts)
      .filter((part) => part.type === "text");
    assert.match(texts.at(-1)?.text ?? "", /^VERDICT: PASS/, JSON.stringify(texts).slice(0, 1000));
  });

  test("after stop, no process of the project is left besides OpenCode's own, and the port is free", async () => {
    assert.ok(opencode);
    const home = opencode.home;
    // OpenCode's own: its process tree, and the Chromium helpers that leave the tree (crashpad
    // handlers double-fork) but keep their data under OpenCode's temporary home.
    const ofOpenCode = (pid: number) => descendants(opencode?.pid ?? 0).has(pid) || commandOf(pid).includes(home);
    const left = await waitFor(
      "the project's processes to end",
      () => {
        const others = processesUnder(copy.root).filter((pid) => !ofOpenCode(pid));
        return others.length === 0 ? others : undefined;
      },
      15_000,
    ).catch(() => processesUnder(copy.root).filter((pid) => !ofOpenCode(pid)));
    assert.deepEqual(
      left.map((pid) => `${pid} ${commandOf(pid).slice(0, 160)}`),
      [],
      "processes of the copy outside OpenCode",
    );
    assert.ok(port !== undefined, "start answered a port");
    assert.equal(await isPortFree(port), true, `port ${port} free`);
  });

  test("once OpenCode has ended, nothing runs in the copy", async () => {
    assert.ok(opencode);
    await opencode.stop();
    const left = await waitFor(
      "the copy's processes to end",
      () => (processesUnder(copy.root).length === 0 ? [] : undefined),
      15_000,
    ).catch(() => processesUnder(copy.root));
    assert.deepEqual(
      left.map((pid) => `${pid} ${commandOf(pid).slice(0, 160)}`),
      [],
      "processes left in the copy",
    );
  });
});
