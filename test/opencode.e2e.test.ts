// The project as the real OpenCode loads it: opencode-ai's own binary (Bun inside) serving
// the repository on loopback. It must list the sixteen blog_* tools and the blog-validator
// agent, and, driven by a scripted model, run a tool file for real. Tool files that load in
// Node but fail in OpenCode's Bun are the bug this catches. The blog_* definitions the model
// is offered are compared with opencode-tools.snapshot.json beside this file: a run with
// UPDATE_SNAPSHOTS=1 rewrites it (review its diff, then commit it). OpenCode in a new site
// installed from npm, with the tool files `vigie init` writes, is in agents.npm.test.ts.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { BLOG_ROOT } from "../packages/vigie/test/support/blog.ts";
import { matchSnapshot } from "../packages/vigie/test/support/snapshot.ts";
import { type OpenCodeServer, type ScriptedModel, scriptedProvider, startOpenCode, startScriptedModel } from "./support/opencode.ts";

/** The blog_* definitions as OpenCode sends them to a model; `UPDATE_SNAPSHOTS=1` rewrites it. */
const SNAPSHOT = join(import.meta.dirname, "opencode-tools.snapshot.json");

/** The tool contract of DESIGN.md. */
const BLOG_TOOLS = [
  "blog_dev_start",
  "blog_dev_stop",
  "blog_dev_status",
  "blog_dev_logs",
  "blog_dev_http_get",
  "blog_dev_changes",
  "blog_build_run",
  "blog_build_lint",
  "blog_build_check",
  "blog_build_links",
  "blog_browser_js_errors",
  "blog_browser_perf",
  "blog_browser_screenshot",
  "blog_browser_a11y",
  "blog_browser_crawl",
  "blog_browser_visual_diff",
];

interface Message {
  info: { role: string };
  parts: { type: string; tool?: string; state?: { status: string; output?: string; error?: string } }[];
}

interface Rule {
  permission: string;
  pattern: string;
  action: "allow" | "deny" | "ask";
}

interface Agent {
  name: string;
  description?: string;
  mode: string;
  permission: Rule[];
}

function wildcard(pattern: string, value: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${source}$`).test(value);
}

/** What the agent's rules decide for a tool, the way OpenCode reads them: the last rule that matches wins. */
function decision(agent: Agent, tool: string): string | undefined {
  return agent.permission.findLast((rule) => rule.pattern === "*" && wildcard(rule.permission, tool))?.action;
}

describe("OpenCode loads the project", () => {
  let model: ScriptedModel;
  let opencode: OpenCodeServer | undefined;

  before(async () => {
    model = await startScriptedModel("blog_dev_status");
    opencode = await startOpenCode(BLOG_ROOT, scriptedProvider(model.baseURL));
    console.log(`opencode serve listening after ${opencode.startMs} ms`);
  });

  after(async () => {
    await opencode?.stop();
    await model?.close();
  });

  test("it lists the sixteen blog_* tools of the contract", async () => {
    assert.ok(opencode);
    const started = Date.now();
    const ids = await opencode.request<string[]>("GET", "/experimental/tool/ids", BLOG_ROOT);
    console.log(`first tool listing: ${Date.now() - started} ms, ${ids.length} tools`);
    const missing = BLOG_TOOLS.filter((name) => !ids.includes(name));
    assert.deepEqual(missing, [], `missing from OpenCode's tools: ${missing.join(", ")}\n${opencode.output().slice(-3000)}`);
    const blogTools = ids.filter((id) => id.startsWith("blog_")).sort();
    assert.deepEqual(blogTools, [...BLOG_TOOLS].sort(), "no blog_* tool outside the contract");
  });

  test("it lists the blog-validator agent: a subagent that may only read and run the blog_* tools", async () => {
    assert.ok(opencode);
    const agents = await opencode.request<Agent[]>("GET", "/agent", BLOG_ROOT);
    const validator = agents.find((agent) => agent.name === "blog-validator");
    assert.ok(validator, `agents: ${agents.map((agent) => agent.name).join(", ")}`);
    assert.equal(validator.mode, "subagent");
    assert.match(validator.description ?? "", /verdict/i);
    for (const tool of BLOG_TOOLS) assert.equal(decision(validator, tool), "allow", tool);
    for (const tool of ["read", "grep", "glob", "list"]) assert.equal(decision(validator, tool), "allow", tool);
    for (const tool of ["edit", "write", "bash", "webfetch", "task", "todowrite"]) assert.equal(decision(validator, tool), "deny", tool);
  });

  test("driven by a model, it runs blog_dev_status inside its Bun and hands back the tool's JSON", async () => {
    assert.ok(opencode);
    const session = await opencode.request<{ id: string }>("POST", "/session", BLOG_ROOT, {});
    // Answers when the turn is over (the tool call, then the model's text).
    await opencode.request("POST", `/session/${session.id}/message`, BLOG_ROOT, {
      agent: "blog-validator",
      model: { providerID: "scripted", modelID: "scripted-model" },
      parts: [{ type: "text", text: "Is the dev server running?" }],
    });
    const messages = await opencode.request<Message[]>("GET", `/session/${session.id}/message`, BLOG_ROOT);
    const parts = messages.flatMap((message) => message.parts);

    // What the model was offered: the blog_* tools and the read-only ones, nothing that writes.
    const offered = model.requests.find((request) => request.tools.length > 0);
    assert.ok(offered, `the model got no request with tools: ${model.requests.length} requests`);
    const names = offered.tools.map((entry) => entry.function.name);
    for (const tool of BLOG_TOOLS) assert.ok(names.includes(tool), `${tool} offered to the validator (offered: ${names.join(", ")})`);
    for (const tool of ["edit", "write", "bash", "apply_patch", "webfetch", "task"])
      assert.ok(!names.includes(tool), `${tool} not offered`);
    const blogDefinitions = offered.tools.filter((entry) => entry.function.name.startsWith("blog_"));
    console.log(
      `the ${blogDefinitions.length} blog_* definitions as the model receives them: ${Buffer.byteLength(JSON.stringify(blogDefinitions))} bytes`,
    );
    // Each blog_* definition exactly as OpenCode sends it (name, description, JSON schema), by
    // name (the order is OpenCode's loading order, not ours). A change to a tool's description
    // or arguments shows here: rerun with UPDATE_SNAPSHOTS=1, review the diff, commit it.
    matchSnapshot(
      SNAPSHOT,
      blogDefinitions.toSorted((a, b) => a.function.name.localeCompare(b.function.name)),
    );

    // The tool ran in OpenCode's process and its JSON answer came back whole.
    const call = parts.find((part) => part.type === "tool" && part.tool === "blog_dev_status");
    assert.ok(call?.state, `no blog_dev_status call in the session: ${JSON.stringify(parts).slice(0, 1500)}`);
    assert.equal(call.state.status, "completed", `${call.state.error ?? ""}\n${opencode.output().slice(-2000)}`);
    const answer = JSON.parse(call.state.output ?? "") as Record<string, unknown>;
    assert.equal(typeof answer.running, "boolean", call.state.output);
    const result = model.requests.flatMap((request) => request.messages).find((message) => message.role === "tool");
    assert.ok(result, "the tool's result went back to the model");
    assert.match(JSON.stringify(result.content), /running/);
  });
});
