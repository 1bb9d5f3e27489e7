// Every agent as a new user gets it: a new Astro site installed from npm with vigie from the
// `npm pack` tarball (`npm install -D vigie`), then exactly the README's commands (`npx vigie
// init`, `npx vigie init --mcp <client>`) and the approval each client asks for; then the
// client's own binary (this repository's exact devDependencies), driven by a stand-in model on
// loopback that speaks its API (test/support/stand-in.ts). Each client must list vigie's
// sixteen tools and make real calls: start the dev server, js_errors on a page that throws
// until the answer has the error with its source line, stop the server (OpenCode leaves
// without stopping it: the server ends with OpenCode). Afterwards no process of the site is
// left: no dev server, no `vigie mcp`, no Chromium. One install and one copy of the site serve
// every client, one after the other. Cursor has no binary to drive here: its .cursor/mcp.json
// server is started the way Cursor documents it (variables filled in, outside the project).
// Prints, per client, its version, vigie's definitions as sent to the model and the time from
// the client's start to vigie's first answer.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { processesUnder } from "../packages/vigie/test/core/devServer/helpers.ts";
import { BLOG_ROOT, freePort } from "../packages/vigie/test/support/blog.ts";
import { OPENCODE_VERSION, scriptedProvider, startOpenCode, startScriptedAgent, toolResults } from "./support/opencode.ts";
import { assertMcpLists, figure, initSite, seconds, TOOLS } from "./support/package-checks.ts";
import { endAll, type InstalledSite, installSite, MINIMAL_SITE, packedVigie } from "./support/site-install.ts";
import {
  assertCheckedPage,
  assertNothingLeftIn,
  checkPageScript,
  claudeStandIn,
  codexStandIn,
  codexVigieTools,
  type GeminiRequest,
  geminiResults,
  geminiStandIn,
  type MessagesRequest,
  messagesResults,
  type ResponsesRequest,
  type Result,
  responsesResults,
  runAgent,
  THROWING_PAGE,
  userEnv,
} from "./support/stand-in.ts";

const bin = (name: string) => join(BLOG_ROOT, "node_modules", ".bin", name);
const versionOf = (name: string) =>
  (JSON.parse(readFileSync(join(BLOG_ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
const PROMPT = `Does the page ${THROWING_PAGE.path} work?`;
/** What `blog_dev_start` says of a server that an MCP session started. */
const MCP_LIFETIME = /stopped when this MCP session ends/;
const bytes = (value: unknown) => `${(Buffer.byteLength(JSON.stringify(value)) / 1024).toFixed(1)} KB`;

describe("every agent in a new site installed from npm, after the README's commands", { timeout: 1_800_000 }, () => {
  let site: InstalledSite | undefined;
  const homes: string[] = [];
  const home = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), `vigie-${name}-home-`));
    homes.push(dir);
    return dir;
  };
  /** `npx vigie init --mcp <client>` in the site: exit 0, the client's file named, and what the client asks. */
  const initMcp = async (client: string, file: RegExp, asks: RegExp) => {
    assert.ok(site);
    const result = await site.vigie(["init", "--mcp", client], 120_000);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, file, result.stdout);
    assert.match(result.stdout, asks, result.stdout);
  };

  before(async () => {
    const packed = await packedVigie();
    site = await installSite(MINIMAL_SITE, packed.tarball);
    // A site is a git repository of its own (create-astro makes one); Codex and OpenCode find the project's root by it.
    execFileSync("git", ["init", "--quiet", site.root], { stdio: "ignore", timeout: 30_000 });
    await initSite(site);
    site.write(THROWING_PAGE.file, THROWING_PAGE.text);
  });

  after(() => {
    endAll();
    if (site) {
      for (const pid of processesUnder(site.root)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone
        }
      }
      site.remove();
    }
    for (const dir of homes) rmSync(dir, { recursive: true, force: true });
  });

  test("OpenCode: its tools from .opencode/tools/ without @opencode-ai/plugin; the server it started ends with it", async () => {
    assert.ok(site);
    const root = site.root;
    const script = checkPageScript(await freePort(), { stop: false });
    let firstAnswerAt = 0;
    const model = await startScriptedAgent((results) => {
      const ours: Result[] = results
        .filter((result) => result.tool.startsWith("blog_"))
        .map((result) => ({ name: result.tool, text: result.content }));
      if (ours.length > 0) firstAnswerAt ||= Date.now();
      const step = script(ours);
      return "text" in step ? step : { tool: `blog_${step.tool}`, args: step.args };
    }, "Checking a page");
    const started = Date.now();
    const opencode = await startOpenCode(root, scriptedProvider(model.baseURL));
    try {
      const ids = await opencode.request<string[]>("GET", "/experimental/tool/ids", root);
      assert.deepEqual(
        TOOLS.filter((name) => !ids.includes(name)),
        [],
        opencode.output().slice(-3000),
      );
      const session = await opencode.request<{ id: string }>("POST", "/session", root, {});
      await opencode.request(
        "POST",
        `/session/${session.id}/message`,
        root,
        { model: { providerID: "scripted", modelID: "scripted-model" }, parts: [{ type: "text", text: PROMPT }] },
        240_000,
      );
      const last =
        model.requests
          .map(toolResults)
          .filter((results) => results.length > 0)
          .at(-1) ?? [];
      const results = last.map((result) => ({ name: result.tool, text: result.content }));
      assertCheckedPage(results, { lifetime: /stopped when this OpenCode process ends/, stopped: false }, opencode.output());
      const offered = model.requests.find((request) => request.tools.length > 0)?.tools ?? [];
      const ours = offered.filter((entry) => entry.function.name.startsWith("blog_"));
      assert.equal(ours.length, 16);
      figure(
        `OpenCode ${OPENCODE_VERSION} in a new site: ${ours.length} definitions, ${bytes(ours)} as sent to the model; first vigie answer ${seconds(firstAnswerAt - started)} after \`opencode serve\` started`,
      );
    } finally {
      await opencode.stop();
      await model.close();
    }
    await assertNothingLeftIn(root);
  });

  test("Claude Code: .mcp.json approved, its tools found through ToolSearch; nothing left after it exits", async () => {
    assert.ok(site);
    const root = site.root;
    await initMcp("claude", /\.mcp\.json/, /approve the project's MCP server "vigie"/);
    // What the user's approvals write: the folder trusted, the project's server enabled.
    const dir = home("claude");
    writeFileSync(join(dir, ".claude.json"), JSON.stringify({ projects: { [root]: { hasTrustDialogAccepted: true } } }));
    site.write(".claude/settings.local.json", JSON.stringify({ enabledMcpjsonServers: ["vigie"] }));
    const model = await claudeStandIn(checkPageScript(await freePort()));
    try {
      const env = userEnv({
        HOME: dir,
        XDG_CONFIG_HOME: join(dir, ".config"),
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${model.port}`,
        ANTHROPIC_API_KEY: "stand-in",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_TELEMETRY: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        // Claude Code gives an MCP server 30 s to answer by default: a loaded 2-core machine may need more.
        MCP_TIMEOUT: "120000",
      });
      const started = Date.now();
      const run = await runAgent(
        bin("claude"),
        ["-p", PROMPT, "--allowedTools", "mcp__vigie", "--output-format", "stream-json", "--verbose"],
        { cwd: root, env },
      );
      const requests = model.requests as MessagesRequest[];
      // Listed: Claude Code names every deferred tool to the model, and loads a definition when the model selects it.
      const said = JSON.stringify(requests.at(-1) ?? {});
      assert.deepEqual(
        TOOLS.filter((name) => !said.includes(`mcp__vigie__${name}`)),
        [],
        run.output.slice(-3000),
      );
      const results = messagesResults(requests.at(-1) ?? {}).filter((result) => result.name.startsWith("mcp__vigie__"));
      assertCheckedPage(results, { lifetime: MCP_LIFETIME }, run.output);
      const loaded = requests
        .map((request) => (request.tools ?? []).filter((tool) => tool.name.startsWith("mcp__vigie__")))
        .reduce((a, b) => (b.length > a.length ? b : a), []);
      figure(
        `Claude Code ${versionOf("@anthropic-ai/claude-code")} in a new site: ${loaded.length} definitions loaded on demand, ${bytes(loaded)} as sent to the model; first vigie answer ${seconds(model.firstAnswerAt() - started)} after its start`,
      );
    } finally {
      await model.close();
    }
    await assertNothingLeftIn(root);
  });

  test("Gemini CLI: .gemini/settings.json in a trusted folder, its wait_for_previous ignored and named; nothing left after it exits", async () => {
    assert.ok(site);
    const root = site.root;
    await initMcp("gemini", /\.gemini\/settings\.json/, /trust the folder/);
    const dir = home("gemini");
    mkdirSync(join(dir, ".gemini"), { recursive: true });
    writeFileSync(join(dir, ".gemini", "settings.json"), JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }));
    const model = await geminiStandIn(checkPageScript(await freePort()));
    try {
      const env = userEnv({
        HOME: dir,
        XDG_CONFIG_HOME: join(dir, ".config"),
        GEMINI_API_KEY: "stand-in",
        GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${model.port}`,
        // The user's answer to "trust this folder?".
        GEMINI_CLI_TRUST_WORKSPACE: "true",
        GEMINI_CLI_NO_RELAUNCH: "true",
      });
      const started = Date.now();
      const run = await runAgent(
        bin("gemini"),
        ["-m", "gemini-2.5-flash", "-p", PROMPT, "--approval-mode", "yolo", "--output-format", "json"],
        { cwd: root, env },
      );
      const requests = model.requests as GeminiRequest[];
      const declared = requests.find((request) => request.tools?.length)?.tools?.flatMap((tool) => tool.functionDeclarations ?? []) ?? [];
      const ours = declared.filter((entry) => /blog_/.test(entry.name));
      assert.equal(ours.length, 16, `declared: ${declared.map((entry) => entry.name).join(", ")}\n${run.output.slice(-3000)}`);
      const results = geminiResults(requests.at(-1) ?? {});
      assertCheckedPage(results, { lifetime: MCP_LIFETIME }, run.output);
      assert.match(results.find((result) => result.name.endsWith("dev_start"))?.text ?? "", /wait_for_previous/, "named as ignored");
      figure(
        `Gemini CLI ${versionOf("@google/gemini-cli")} in a new site: ${ours.length} declarations, ${bytes(ours)} as sent to the model; first vigie answer ${seconds(model.firstAnswerAt() - started)} after its start`,
      );
    } finally {
      await model.close();
    }
    await assertNothingLeftIn(root);
  });

  test("Codex: .codex/config.toml read once the folder is trusted; nothing left after it exits", async () => {
    assert.ok(site);
    const root = site.root;
    await initMcp("codex", /\.codex\/config\.toml/, /trust the folder/);
    const dir = home("codex");
    mkdirSync(join(dir, ".codex"));
    // What the user's "trust this folder" writes (Codex's prompt, or `codex exec --trust`).
    writeFileSync(join(dir, ".codex", "config.toml"), `[projects.${JSON.stringify(root)}]\ntrust_level = "trusted"\n`);
    const model = await codexStandIn(checkPageScript(await freePort()));
    try {
      const env = userEnv({ HOME: dir, CODEX_HOME: join(dir, ".codex"), FAKE_KEY: "stand-in" });
      const started = Date.now();
      const run = await runAgent(
        bin("codex"),
        [
          "exec",
          "--dangerously-bypass-approvals-and-sandbox",
          "-c",
          "model_provider=fake",
          "-c",
          "model=gpt-5.5",
          "-c",
          `model_providers.fake={name="fake",base_url="http://127.0.0.1:${model.port}/v1",wire_api="responses",env_key="FAKE_KEY"}`,
          // Codex gives an MCP server 10 s to start by default: a loaded 2-core machine may need more
          // (merged into the project's table; a trusted project's layer is loaded with it).
          "-c",
          "mcp_servers.vigie.startup_timeout_sec=120",
          PROMPT,
        ],
        { cwd: root, env },
      );
      const requests = model.requests as ResponsesRequest[];
      const ours = requests.map(codexVigieTools).find((tools) => tools) ?? [];
      assert.equal(ours.length, 16, `vigie's tools never came through tool_search\n${run.output.slice(-3000)}`);
      const results = responsesResults(requests.at(-1) ?? {}).filter((result) => /blog_/.test(result.name));
      assertCheckedPage(results, { lifetime: MCP_LIFETIME }, run.output);
      figure(
        `Codex ${versionOf("@openai/codex")} in a new site: ${ours.length} definitions through tool_search, ${bytes(ours)} as sent to the model; first vigie answer ${seconds(model.firstAnswerAt() - started)} after its start`,
      );
    } finally {
      await model.close();
    }
    await assertNothingLeftIn(root);
  });

  test("Cursor (no binary here): the server of .cursor/mcp.json, its variables filled in as Cursor does, started outside the project", async () => {
    assert.ok(site);
    const root = site.root;
    await initMcp("cursor", /\.cursor\/mcp\.json/, /MCP settings/);
    const config = JSON.parse(site.read(".cursor/mcp.json")) as { mcpServers: Record<string, { command: string; args?: string[] }> };
    const server = config.mcpServers.vigie;
    assert.ok(server);
    const fill = (text: string) => text.replaceAll("\u0024{workspaceFolder}", root);
    await assertMcpLists(root, {
      command: fill(server.command),
      args: (server.args ?? []).map(fill),
      cwd: home("cursor"),
      env: userEnv({}) as Record<string, string>,
    });
    await assertNothingLeftIn(root);
  });
});
