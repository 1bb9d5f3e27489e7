// `vigie init` and `vigie doctor` on small Astro projects made in a temporary folder (no
// install: the files they write and read), and the tool names under another prefix.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { Ajv } from "ajv";
import { doctor } from "../../src/cli/doctor.ts";
import { init } from "../../src/cli/init.ts";
import { projectAt } from "../../src/core/project.ts";
import { mcpTools } from "../../src/faces/mcp.ts";
import { findTool } from "../../src/tools/registry.ts";
import { prefixOf, renameTools, runTool } from "../../src/tools/run.ts";

const folders: string[] = [];
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function site(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "vigie-init-"));
  folders.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const BILINGUAL = {
  "package.json": JSON.stringify({ name: "x", dependencies: { astro: "^7.3.5" } }),
  "astro.config.mjs": `export default { i18n: { locales: ["de", "en"], defaultLocale: "de" } };`,
  "src/content.config.ts": `import { defineCollection } from "astro:content";
import { glob } from "astro/loaders";
const posts = defineCollection({ loader: glob({ pattern: "**/*.md", base: "./src/posts" }) });
export const collections = { posts };`,
  "src/posts/de/a.md": "---\ntitle: A\n---\n",
  "src/posts/en/a.md": "---\ntitle: A\n---\n",
};

const outcomes = (result: ReturnType<typeof init>) => Object.fromEntries(result.files.map((file) => [file.path, file.outcome]));

describe("vigie init", () => {
  test("writes the tool files, the agent for this site, the skill, the config and .gitignore; a second run changes nothing", () => {
    const root = site({ ...BILINGUAL, ".gitignore": "node_modules/\n" });
    const project = projectAt(root);
    const first = init(project, { prefix: "docs" });
    assert.deepEqual(outcomes(first), {
      ".opencode/tools/docs_dev.ts": "created",
      ".opencode/tools/docs_build.ts": "created",
      ".opencode/tools/docs_browser.ts": "created",
      ".opencode/agents/docs-validator.md": "created",
      ".claude/skills/vigie/SKILL.md": "created",
      ".agents/skills/vigie/SKILL.md": "created",
      "vigie.config.json": "created",
      ".gitignore": "updated",
    });
    // The skill: frontmatter an Agent Skill needs, the command-line loop, the project's tool names.
    const skill = readFileSync(join(root, ".claude/skills/vigie/SKILL.md"), "utf8");
    assert.match(skill, /^---\nname: vigie\ndescription: >-\n {2}\S/);
    assert.match(skill, /npx vigie validate --changed/);
    assert.match(skill, /npx vigie js_errors --path \//);
    assert.match(skill, /docs_browser_crawl/);
    assert.equal(readFileSync(join(root, ".agents/skills/vigie/SKILL.md"), "utf8"), skill);
    const dev = readFileSync(join(root, ".opencode/tools/docs_dev.ts"), "utf8");
    assert.match(dev, /import \{ openCodeTools \} from "vigie\/opencode";/);
    assert.match(dev, /export const \{ start, stop, status, logs, http_get, changes \} = openCodeTools\("dev", \{ prefix: "docs" \}\);/);
    const agent = readFileSync(join(root, ".opencode/agents/docs-validator.md"), "utf8");
    assert.match(agent, /"docs_\*": true/);
    assert.match(agent, /`de` and `en`, `de` by default/);
    assert.match(agent, /`posts` \(`src\/posts\/`, 2 entries\)/);
    assert.match(agent, /`docs_dev_http_get` on `\/`, `\/en\/`/);
    assert.doesNotMatch(agent, /blog_/);
    const config = JSON.parse(readFileSync(join(root, "vigie.config.json"), "utf8")) as { prefix: string; criticalRoutes: string[] };
    assert.deepEqual(config, { prefix: "docs", criticalRoutes: ["/", "/en/"] });
    const gitignore = readFileSync(join(root, ".gitignore"), "utf8");
    assert.match(gitignore, /^node_modules\/\n/);
    assert.match(gitignore, /^\.opencode\/reports\/$/m);
    assert.match(gitignore, /^\.opencode\/dev\/$/m);
    assert.match(gitignore, /^\.opencode\/changes\/$/m);

    const second = init(project, { prefix: "docs" });
    assert.ok(
      second.files.every((file) => file.outcome === "unchanged"),
      JSON.stringify(second.files),
    );
  });

  test("a file the user changed is kept without --force and overwritten with it; a file vigie wrote is updated", () => {
    const root = site(BILINGUAL);
    const project = projectAt(root);
    init(project);
    const path = join(root, ".opencode/tools/blog_build.ts");
    writeFileSync(path, "// mine\n");
    const kept = init(project).files.find((file) => file.path === ".opencode/tools/blog_build.ts");
    assert.equal(kept?.outcome, "kept");
    assert.match(kept?.note ?? "", /--force/);
    assert.equal(readFileSync(path, "utf8"), "// mine\n");
    assert.equal(outcomes(init(project, { force: true }))[".opencode/tools/blog_build.ts"], "overwritten");
    assert.match(readFileSync(path, "utf8"), /openCodeTools\("build"/);

    // A file vigie wrote (its hash is recorded) and the user did not touch is rewritten when the template changes.
    const agent = join(root, ".opencode/agents/blog-validator.md");
    const record = join(root, ".opencode/vigie-init.json");
    writeFileSync(agent, "old template\n");
    const hashes = JSON.parse(readFileSync(record, "utf8")) as { files: Record<string, string> };
    hashes.files[".opencode/agents/blog-validator.md"] = createHash("sha256").update("old template\n").digest("hex");
    writeFileSync(record, JSON.stringify(hashes));
    assert.equal(outcomes(init(project))[".opencode/agents/blog-validator.md"], "updated");
    assert.match(readFileSync(agent, "utf8"), /blog_dev_status/);
  });

  test("--mcp merges the vigie server into the client's file, keeping the other servers", () => {
    const other = { command: "other-server", args: ["--x"] };
    const root = site({ ...BILINGUAL, ".mcp.json": JSON.stringify({ mcpServers: { other } }) });
    const project = projectAt(root);
    assert.equal(outcomes(init(project, { mcp: "claude" }))[".mcp.json"], "updated");
    const config = JSON.parse(readFileSync(join(root, ".mcp.json"), "utf8")) as { mcpServers: Record<string, unknown> };
    assert.deepEqual(config.mcpServers, { other, vigie: { command: "npx", args: ["--no-install", "vigie", "mcp"] } });
    assert.equal(outcomes(init(project, { mcp: "claude" }))[".mcp.json"], "unchanged");
    assert.equal(outcomes(init(project, { mcp: "cursor" }))[join(".cursor", "mcp.json")], "created");
    assert.ok(existsSync(join(root, ".cursor", "mcp.json")));
  });

  test("--mcp claude|cursor|gemini|codex: each client's own file or command, a server that never fetches, what the user is asked", () => {
    const root = site({ ...BILINGUAL, ".gemini/settings.json": JSON.stringify({ theme: "dark" }) });
    const project = projectAt(root);
    const read = (path: string) =>
      JSON.parse(readFileSync(join(root, path), "utf8")) as { mcpServers: Record<string, { command: string; args: string[] }> };
    const claude = init(project, { mcp: "claude" });
    assert.match(claude.next.join("\n"), /approve the project's MCP server "vigie"/);
    const cursor = init(project, { mcp: "cursor" });
    assert.deepEqual(read(join(".cursor", "mcp.json")).mcpServers.vigie, {
      command: "\u0024{workspaceFolder}/node_modules/.bin/vigie",
      args: ["mcp", "--project", "\u0024{workspaceFolder}"],
    });
    assert.match(cursor.next.join("\n"), /MCP settings/);
    const gemini = init(project, { mcp: "gemini" });
    assert.equal(outcomes(gemini)[join(".gemini", "settings.json")], "updated");
    const settings = read(join(".gemini", "settings.json")) as unknown as { theme: string; mcpServers: Record<string, unknown> };
    assert.equal(settings.theme, "dark", "the user's settings are kept");
    assert.deepEqual(settings.mcpServers.vigie, { command: "npx", args: ["--no-install", "vigie", "mcp"] });
    assert.match(gemini.next.join("\n"), /trust the folder/);
    const codex = init(project, { mcp: "codex" });
    assert.equal(outcomes(codex)[join(".codex", "config.toml")], "created");
    assert.equal(
      readFileSync(join(root, ".codex", "config.toml"), "utf8"),
      '[mcp_servers.vigie]\ncommand = "npx"\nargs = ["--no-install", "vigie", "mcp"]\n',
    );
    assert.match(codex.next.join("\n"), /trust the folder.*--trust/);
    assert.ok(!codex.next.some((line) => line.includes("codex mcp add")), "no command to run besides codex itself");
    // No server command may fetch a package: npx always with --no-install, else an absolute bin.
    for (const path of [".mcp.json", join(".cursor", "mcp.json"), join(".gemini", "settings.json")]) {
      const { command: bin, args } = read(path).mcpServers.vigie ?? { command: "", args: [] };
      assert.ok(bin === "npx" ? args[0] === "--no-install" : bin.endsWith("/node_modules/.bin/vigie"), `${path}: ${bin} ${args.join(" ")}`);
    }
  });

  test("--mcp codex adds a [mcp_servers.vigie] table to the project's config.toml, keeping the rest; --force replaces a different one", () => {
    const mine = 'model = "gpt-5"\n\n[mcp_servers.other]\ncommand = "other"\n';
    const root = site({ ...BILINGUAL, ".codex/config.toml": mine });
    const project = projectAt(root);
    const path = join(".codex", "config.toml");
    const read = () => readFileSync(join(root, path), "utf8");
    const table = '[mcp_servers.vigie]\ncommand = "npx"\nargs = ["--no-install", "vigie", "mcp"]\n';
    assert.equal(outcomes(init(project, { mcp: "codex" }))[path], "updated");
    assert.equal(read(), `${mine}\n${table}`);
    assert.equal(outcomes(init(project, { mcp: "codex" }))[path], "unchanged");
    const different = `${mine}\n[mcp_servers.vigie]\ncommand = "vigie"\n\n[profiles.fast]\nmodel = "x"\n`;
    writeFileSync(join(root, path), different);
    assert.equal(outcomes(init(project, { mcp: "codex" }))[path], "kept");
    assert.equal(read(), different);
    assert.equal(outcomes(init(project, { mcp: "codex", force: true }))[path], "overwritten");
    assert.equal(read(), `${mine}\n${table}\n[profiles.fast]\nmodel = "x"\n`);
    writeFileSync(join(root, path), 'mcp_servers = { vigie = { command = "x" } }\n');
    assert.equal(outcomes(init(project, { mcp: "codex" }))[path], "kept");
  });

  test("--mcp cursor writes .cursor/mcp.json as Cursor documents it (no Cursor binary to run here)", () => {
    // Cursor's documented project file (cursor.com/docs/mcp): {"mcpServers": {NAME: server}}, a stdio
    // server being {command, args?, env?, envFile?, type?: "stdio"}; Cursor fills in ${workspaceFolder},
    // ${workspaceFolderBasename}, ${userHome} and ${env:NAME} in command, args and env.
    const root = site(BILINGUAL);
    init(projectAt(root), { mcp: "cursor" });
    const file = JSON.parse(readFileSync(join(root, ".cursor", "mcp.json"), "utf8")) as unknown;
    const stdio = {
      type: "object",
      required: ["command"],
      additionalProperties: false,
      properties: {
        type: { const: "stdio" },
        command: { type: "string", minLength: 1 },
        args: { type: "array", items: { type: "string" } },
        env: { type: "object", additionalProperties: { type: "string" } },
        envFile: { type: "string" },
      },
    };
    const schema = {
      type: "object",
      required: ["mcpServers"],
      properties: { mcpServers: { type: "object", additionalProperties: stdio } },
    };
    const ajv = new Ajv({ strict: true, allErrors: true });
    assert.ok(ajv.validate(schema, file), ajv.errorsText());
    const { command, args } = (file as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers.vigie ?? {
      command: "",
      args: [],
    };
    const documented = /\$\{(workspaceFolder|workspaceFolderBasename|userHome|env:[A-Za-z_][A-Za-z0-9_]*)\}/g;
    for (const text of [command, ...args])
      assert.doesNotMatch(text.replaceAll(documented, ""), /\$\{/, `only variables Cursor fills in: ${text}`);
    // Filled in as Cursor does, the command is the site's own bin and the project its folder, wherever Cursor starts it.
    const filled = [command, ...args].map((text) => text.replaceAll("\u0024{workspaceFolder}", root));
    assert.deepEqual(filled, [join(root, "node_modules", ".bin", "vigie"), "mcp", "--project", root]);
  });

  test("a prefix that is not a lower-case word is refused, naming what is accepted", () => {
    const root = site(BILINGUAL);
    assert.throws(() => init(projectAt(root), { prefix: "My-Tools" }), /lower-case word/);
  });
});

describe("tool names under the project's prefix", () => {
  test("the MCP list, the descriptions and every answer use the prefix; the config gives it", async () => {
    const root = site({ ...BILINGUAL, "vigie.config.json": JSON.stringify({ prefix: "docs" }) });
    const project = projectAt(root);
    assert.equal(prefixOf(project), "docs");
    assert.equal(prefixOf(projectAt(site(BILINGUAL))), "blog");
    const names = mcpTools("docs").map((tool) => tool.name);
    assert.ok(names.includes("docs_dev_start") && !names.some((name) => name.startsWith("blog_")));
    assert.doesNotMatch(JSON.stringify(mcpTools("docs")), /blog_(dev|build|browser)_/);

    const status = findTool("blog_dev_status");
    assert.ok(status);
    const answer = await runTool(status, {}, { project, prefix: "docs" });
    assert.match(String(answer.hint), /docs_dev_start/);
    const bad = await runTool(status, { nope: 1 }, { project, prefix: "docs", unknownArguments: "refuse" });
    assert.match(String(bad.error), /^docs_dev_status: unknown argument "nope"/);
    const ignored = await runTool(status, { nope: 1 }, { project, prefix: "docs" });
    assert.deepEqual(ignored.ignoredArguments, ["nope"]);
    assert.deepEqual(renameTools({ hint: ["call blog_build_lint"] }, "docs"), { hint: ["call docs_build_lint"] });
    assert.equal(renameTools("myblog_dev_start stays", "docs"), "myblog_dev_start stays");
  });

  test("a custom prefix renames vigie's tool names, never the project's data", () => {
    const answer = {
      error: "the build failed at src/content/blog_build_notes.md",
      hint: "Fix it, then blog_build_run; blog_build_lint finds most faults.",
      log: "tail: blog_build_run done",
      file: "src/pages/blog_dev_start.astro",
      errors: [{ message: "blog_dev_start is not defined", hint: "see blog_dev_logs" }],
      findings: [{ tool: "blog_browser_crawl", message: "blog_browser_crawl in text", fix: "call blog_browser_js_errors." }],
      path: "/blog_dev_start/",
    };
    assert.deepEqual(renameTools(answer, "docs"), {
      error: "the build failed at src/content/blog_build_notes.md",
      hint: "Fix it, then docs_build_run; docs_build_lint finds most faults.",
      log: "tail: blog_build_run done",
      file: "src/pages/blog_dev_start.astro",
      errors: [{ message: "blog_dev_start is not defined", hint: "see docs_dev_logs" }],
      findings: [{ tool: "docs_browser_crawl", message: "blog_browser_crawl in text", fix: "call docs_browser_js_errors." }],
      path: "/blog_dev_start/",
    });
    assert.equal(renameTools("blog_build_notes and blog_build_run", "docs"), "blog_build_notes and docs_build_run");
  });
});

describe("vigie doctor", () => {
  test("names what it found and what to do for what is missing", () => {
    const report = doctor(projectAt(site({ "package.json": JSON.stringify({ name: "x", dependencies: { astro: "^7.3.5" } }) })));
    const item = (name: string) => report.items.find((entry) => entry.name === name);
    assert.equal(item("Node")?.status, "ok");
    assert.equal(item("Astro")?.status, "missing");
    assert.match(item("Astro")?.fix ?? "", /npm install/);
    assert.equal(report.ok, false);
    assert.match(item("Locales")?.found ?? "", /one language/);
    assert.match(item("Content")?.found ?? "", /no content collection/);
    assert.ok(item("OpenCode"));
  });
});
