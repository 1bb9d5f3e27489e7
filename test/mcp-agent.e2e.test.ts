// The dev server and a page check through MCP, as a Claude Code session runs them: the SDK's
// client spawning `vigie mcp` over stdio in a copy of the blog, with Claude Code's marker
// (CLAUDECODE=1) in the server's environment, which makes Astro 7 background `astro dev` by
// itself unless vigie keeps the server its own. Start, js_errors on /, stop; then nothing of
// the project is left and the port is free.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { isPortFree } from "../packages/vigie/src/core/devServer/ports.ts";
import { killEverythingIn, processesUnder, waitFor } from "../packages/vigie/test/core/devServer/helpers.ts";
import { BLOG_ROOT, type BlogCopy, copyBlog } from "../packages/vigie/test/support/blog.ts";

const MAIN = join(BLOG_ROOT, "packages", "vigie", "src", "cli", "main.ts");
/** A bound on each call (a start on a busy 2-core machine, Chromium's first launch). */
const CALL_TIMEOUT_MS = 180_000;

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "(ended)";
  }
}

function environOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
  } catch {
    return [];
  }
}

/** Every process below `pid`, itself included. */
function tree(pid: number): Set<number> {
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

function textOf(result: CallToolResult): string {
  const [item] = result.content;
  assert.equal(item?.type, "text", JSON.stringify(result).slice(0, 500));
  return (item as { text: string }).text;
}

describe("vigie mcp as Claude Code runs it (CLAUDECODE=1)", () => {
  let copy: BlogCopy;
  let client: Client | undefined;
  let transport: StdioClientTransport | undefined;
  let stderr = "";
  let serverPid = 0;
  let port: number | undefined;

  /** Calls a tool; logs the answer's size and time; answers the parsed JSON. */
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> => {
    assert.ok(client);
    const started = Date.now();
    const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS })) as CallToolResult;
    const text = textOf(result);
    console.log(`${name} ${JSON.stringify(args)}: ${Buffer.byteLength(text)} bytes, ${Date.now() - started} ms: ${text.slice(0, 300)}`);
    assert.ok(Buffer.byteLength(text) <= 2048, `${name}: answer under 2 KB`);
    return JSON.parse(text) as Record<string, unknown>;
  };

  before(async () => {
    copy = copyBlog("mcp-agent");
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, "mcp"],
      cwd: copy.root,
      // The test's own environment, as a Claude Code session would pass it, plus its marker.
      env: { ...process.env, CLAUDECODE: "1" } as Record<string, string>,
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk) => (stderr += chunk));
    client = new Client({ name: "claude-code", version: "0.0.0" });
    await client.connect(transport);
    serverPid = transport.pid ?? 0;
    assert.ok(serverPid, "the MCP server runs");
  });

  after(async () => {
    await client?.close().catch(() => undefined);
    if (copy) {
      killEverythingIn(copy);
      copy.remove();
    }
  });

  test("start, js_errors on /, stop", async () => {
    // A longer readiness wait than the default 30 s: a busy 2-core machine, as the tool's own hint advises.
    const start = await call("blog_dev_start", { timeoutMs: 120_000 });
    assert.equal(start.status, "started", JSON.stringify(start));
    assert.equal(typeof start.port, "number", JSON.stringify(start));
    port = start.port as number;
    const home = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(60_000) });
    await home.arrayBuffer();
    assert.equal(home.status, 200, `GET / on the port start answered (${port})`);
    console.log(`CLAUDECODE=1 in the dev server's environment: ${environOf(Number(start.pid)).includes("CLAUDECODE=1")}`);

    const status = await call("blog_dev_status");
    assert.equal(status.running, true, JSON.stringify(status));
    assert.equal(status.port, port, JSON.stringify(status));

    const jsErrors = await call("blog_browser_js_errors", { path: "/" });
    assert.equal(jsErrors.status, 200, JSON.stringify(jsErrors));
    assert.deepEqual(jsErrors.errors, [], JSON.stringify(jsErrors));
    assert.deepEqual(jsErrors.failedRequests, [], JSON.stringify(jsErrors));

    const stop = await call("blog_dev_stop");
    assert.equal(stop.stopped, true, JSON.stringify(stop));
    const after = await call("blog_dev_status");
    assert.equal(after.running, false, JSON.stringify(after));
  });

  test("after stop, no process of the project is left besides the MCP server's own, and the port is free", async () => {
    // The server's own: its tree (its Chromium) and Chromium's crash handlers, which double-fork out of it.
    const ofServer = (pid: number) => tree(serverPid).has(pid) || commandOf(pid).includes("chrome_crashpad_handler");
    const left = await waitFor(
      "the project's processes to end",
      () => {
        const others = processesUnder(copy.root).filter((pid) => !ofServer(pid));
        return others.length === 0 ? others : undefined;
      },
      15_000,
    ).catch(() => processesUnder(copy.root).filter((pid) => !ofServer(pid)));
    assert.deepEqual(
      left.map((pid) => `${pid} ${commandOf(pid).slice(0, 160)}`),
      [],
      "processes of the copy outside the MCP server",
    );
    assert.ok(port !== undefined, "start answered a port");
    assert.equal(await isPortFree(port), true, `port ${port} free`);
  });

  test("once the client has gone, nothing runs in the copy", async () => {
    assert.ok(client);
    await client.close();
    const left = await waitFor(
      "the copy's processes to end",
      () => (processesUnder(copy.root).length === 0 ? [] : undefined),
      15_000,
    ).catch(() => processesUnder(copy.root));
    assert.deepEqual(
      left.map((pid) => `${pid} ${commandOf(pid).slice(0, 160)}`),
      [],
      `processes left in the copy\n${stderr.slice(-1000)}`,
    );
  });
});
