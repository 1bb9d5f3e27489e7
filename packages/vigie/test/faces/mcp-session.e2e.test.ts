// Nothing outlives the agent: a dev server that an MCP session started is stopped when its
// client disconnects without calling stop; a server that was running before the session
// is left running. The real `vigie mcp` over stdio, the SDK's client, a copy of the blog.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Answer } from "../../src/core/answer.ts";
import { findTool } from "../../src/tools/registry.ts";
import { runTool } from "../../src/tools/run.ts";
import { assertAnswerMatches } from "../support/answers.ts";
import { type BlogCopy, copyBlog, freePort } from "../support/blog.ts";

const MAIN = join(import.meta.dirname, "..", "..", "src", "cli", "main.ts");

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(what: string, done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) assert.fail(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `vigie mcp` in `root`, one call of blog_dev_start, then the client goes without calling stop. */
async function startThenLeave(root: string, port: number): Promise<Answer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, "mcp"],
    cwd: root,
    env: { ...process.env } as Record<string, string>,
    stderr: "ignore",
  });
  const client = new Client({ name: "vigie-session-test", version: "0.0.0" });
  await client.connect(transport);
  const mcpPid = transport.pid ?? 0;
  try {
    const result = await client.callTool({ name: "blog_dev_start", arguments: { port } }, undefined, { timeout: 120_000 });
    assertAnswerMatches("blog_dev_start", result.structuredContent);
    return result.structuredContent as Answer;
  } finally {
    await client.close();
    await waitFor("vigie mcp ends after its client closed", () => !isAlive(mcpPid), 30_000);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("an MCP client that leaves without stopping", { timeout: 300_000 }, () => {
  const copies: BlogCopy[] = [];
  const stop = findTool("blog_dev_stop");
  const start = findTool("blog_dev_start");
  assert.ok(stop && start);

  after(async () => {
    for (const copy of copies) {
      await runTool(stop, {}, { project: copy });
      copy.remove();
    }
  });

  test("the dev server the session started is stopped, whole process group", async () => {
    const copy = copyBlog("mcp-session-own");
    copies.push(copy);
    const answer = await startThenLeave(copy.root, await freePort());
    assert.equal(answer.status, "started", JSON.stringify(answer));
    assert.match(String(answer.lifetime), /stopped when this MCP session ends/);
    const pid = Number(answer.pid);
    await waitFor("the dev server's group is gone", () => !groupAlive(pid), 20_000);
    const status = await runTool(findTool("blog_dev_status") ?? stop, {}, { project: copy });
    assert.equal(status.running, false, JSON.stringify(status));
  });

  test("a server that ran before the session is left running", async () => {
    const copy = copyBlog("mcp-session-other");
    copies.push(copy);
    const port = await freePort();
    const before = await runTool(start, { port }, { project: copy });
    assertAnswerMatches(start, before);
    assert.equal(before.status, "started", JSON.stringify(before));
    assert.equal(before.lifetime, "runs until blog_dev_stop");
    const answer = await startThenLeave(copy.root, port);
    assert.equal(answer.status, "already_running", JSON.stringify(answer));
    assert.match(String(answer.lifetime), /left running when it ends/);
    assert.ok(groupAlive(Number(before.pid)), "still running after the client left");
    const stopped = await runTool(stop, {}, { project: copy });
    assertAnswerMatches(stop, stopped);
    assert.equal(stopped.stopped, true, JSON.stringify(stopped));
  });
});
