// Each tool's definition exactly as the MCP face sends it to a model: the raw tools/list
// answer read off the wire by the SDK's real client, over stdio from `vigie mcp`, compared
// with mcp-tools.snapshot.json beside this file (names, titles, descriptions, input and
// output schemas, annotations, in their order).
// A change to the tool list is meant to show here: rerun with UPDATE_SNAPSHOTS=1 to rewrite
// the snapshot, review its diff, commit it with the change.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { BLOG_ROOT } from "../support/blog.ts";
import { matchSnapshot } from "../support/snapshot.ts";

const MAIN = join(import.meta.dirname, "..", "..", "src", "cli", "main.ts");
const SNAPSHOT = join(import.meta.dirname, "mcp-tools.snapshot.json");

describe("the tool list as MCP sends it", () => {
  let client: Client;
  let transport: StdioClientTransport;
  /** Every message the server sent, as parsed off its stdout. */
  const received: JSONRPCMessage[] = [];

  before(async () => {
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, "mcp"],
      // Listing tools starts nothing and writes nothing: the blog itself will do.
      cwd: BLOG_ROOT,
      env: { ...process.env } as Record<string, string>,
      stderr: "pipe",
    });
    client = new Client({ name: "vigie-snapshot", version: "0.0.0" });
    await client.connect(transport);
    const deliver = transport.onmessage;
    transport.onmessage = (...args: Parameters<NonNullable<typeof deliver>>) => {
      received.push(args[0]);
      deliver?.(...args);
    };
  });

  after(async () => {
    const pid = transport?.pid;
    await client?.close().catch(() => undefined);
    if (pid) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone, as it should be
      }
    }
  });

  test("tools/list matches the snapshot", async () => {
    const listed = await client.listTools();
    const answer = received.find((message) => "result" in message && "tools" in (message.result as object));
    assert.ok(answer && "result" in answer, "the raw tools/list answer");
    const sent = (answer.result as { tools: unknown[] }).tools;
    assert.deepStrictEqual(listed.tools, sent, "the SDK's client keeps every field the server sent");
    matchSnapshot(SNAPSHOT, sent);
  });
});
