// vigie as a new user gets it: `npm pack` of packages/vigie, installed with npm into a new
// minimal Astro site made from registry packages only, then `npx vigie init`, `validate`,
// `mcp` (listed to the MCP SDK's own client) and the real OpenCode loading the tool files
// that init wrote. Slow (npm install, a build and a crawl): about 5 minutes on 2 cores.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BLOG_ROOT } from "../packages/vigie/test/support/blog.ts";
import { startOpenCode } from "./support/opencode.ts";
import { endAll, type InstalledSite, installSite, MINIMAL_SITE, packVigie, run } from "./support/site-install.ts";

const TOOLS = [
  "blog_dev_start",
  "blog_dev_stop",
  "blog_dev_status",
  "blog_dev_logs",
  "blog_dev_http_get",
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

const INIT_FILES = [
  ".opencode/tools/blog_dev.ts",
  ".opencode/tools/blog_build.ts",
  ".opencode/tools/blog_browser.ts",
  ".opencode/agents/blog-validator.md",
  "vigie.config.json",
  ".gitignore",
];

interface Report {
  verdict: string;
  findings: { severity: string; tool: string; page?: string; file?: string; message: string }[];
}

describe("the vigie package, installed into a new Astro site", { timeout: 1_200_000 }, () => {
  const packDir = mkdtempSync(join(tmpdir(), "vigie-pack-"));
  let site: InstalledSite | undefined;
  let tarball = "";
  let initMs = 0;

  before(async () => {
    const packed = await packVigie(packDir);
    tarball = packed.tarball;
    console.log(`npm pack: ${(packed.bytes / 1024).toFixed(0)} kB tarball in ${(packed.ms / 1000).toFixed(1)} s`);
    site = await installSite(MINIMAL_SITE, packed.tarball);
    console.log(`npm install of the minimal site: ${(site.installMs / 1000).toFixed(1)} s`);
  });

  after(() => {
    endAll();
    site?.remove();
    rmSync(packDir, { recursive: true, force: true });
  });

  test("the bin runs the compiled package (no TypeScript under node_modules)", async () => {
    assert.ok(site);
    const version = await site.vigie(["--version"], 60_000);
    assert.equal(version.code, 0, version.stderr);
    assert.match(version.stdout, /^\d+\.\d+\.\d+/);
    assert.ok(statSync(join(site.root, "node_modules", "vigie", "dist", "cli", "main.js")).isFile());
  });

  test("init writes the harness; a second run changes nothing; an edited file is kept without --force", async () => {
    assert.ok(site);
    const first = await site.vigie(["init"], 60_000);
    initMs = first.ms;
    assert.equal(first.code, 0, first.stderr);
    for (const path of INIT_FILES) assert.match(first.stdout, new RegExp(`created +${path.replaceAll(".", "\\.")}`), first.stdout);
    assert.match(first.stdout, /Next:\n.*npx vigie validate/);
    assert.match(site.read(".opencode/tools/blog_dev.ts"), /from "vigie\/opencode"/);
    assert.match(site.read(".opencode/agents/blog-validator.md"), /"blog_\*": true/);

    const second = await site.vigie(["init"], 60_000);
    assert.equal(second.code, 0, second.stderr);
    for (const path of INIT_FILES) assert.match(second.stdout, new RegExp(`unchanged +${path.replaceAll(".", "\\.")}`), second.stdout);

    // The user's own budgets (a loaded 2-core machine loads pages slower than the default 200 ms).
    const edited = `${JSON.stringify({ prefix: "blog", criticalRoutes: ["/", "/about/"], budgets: { loadMs: 5000 } }, null, 2)}\n`;
    site.write("vigie.config.json", edited);
    const third = await site.vigie(["init"], 60_000);
    assert.equal(third.code, 0, third.stderr);
    assert.match(third.stdout, /kept +vigie\.config\.json .*--force/);
    assert.equal(site.read("vigie.config.json"), edited, "the edited file is left as it was");
  });

  test("validate: PASS on the clean site", async () => {
    assert.ok(site);
    const result = await site.vigie(["validate", "--json", "report-clean.json"], 600_000);
    console.log(`init ${(initMs / 1000).toFixed(1)} s + validate ${(result.ms / 1000).toFixed(1)} s`);
    const report = JSON.parse(site.read("report-clean.json")) as Report;
    assert.equal(report.verdict, "PASS", `${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`);
    assert.equal(result.code, 0);
  });

  test("validate: a broken internal link is a FAIL naming the page and the tool", async () => {
    assert.ok(site);
    const about = site.read("src/pages/about.astro");
    site.write("src/pages/about.astro", about.replace('<a href="/">home</a>', '<a href="/">home</a> <a href="/missing-page/">missing</a>'));
    try {
      const result = await site.vigie(["validate", "--json", "report-broken.json"], 600_000);
      const report = JSON.parse(site.read("report-broken.json")) as Report;
      assert.equal(report.verdict, "FAIL", result.stdout.slice(-3000));
      assert.equal(result.code, 1);
      const broken = report.findings.filter((finding) => finding.severity === "fail" && /missing-page/.test(JSON.stringify(finding)));
      assert.ok(broken.length > 0, JSON.stringify(report.findings).slice(0, 2000));
      assert.ok(
        broken.some(
          (finding) =>
            finding.tool === "blog_build_links" && /\/about\//.test(`${finding.page ?? ""} ${finding.file ?? ""} ${finding.message}`),
        ),
        JSON.stringify(broken).slice(0, 2000),
      );
      assert.match(result.stdout, /FAIL/);
    } finally {
      site.write("src/pages/about.astro", about);
    }
  });

  test("npx vigie mcp lists the fifteen tools to the MCP SDK's client", async () => {
    assert.ok(site);
    const transport = new StdioClientTransport({
      command: "npx",
      args: ["--no-install", "vigie", "mcp"],
      cwd: site.root,
      env: { ...(process.env as Record<string, string>), NO_COLOR: "1" },
      stderr: "pipe",
    });
    const client = new Client({ name: "package-test", version: "1.0.0" });
    try {
      await client.connect(transport);
      const listed = await client.listTools();
      assert.deepEqual(listed.tools.map((tool) => tool.name).sort(), [...TOOLS].sort());
      for (const tool of listed.tools) assert.ok(tool.title && tool.annotations && tool.outputSchema, tool.name);
      const status = await client.callTool({ name: "blog_dev_status", arguments: {} });
      assert.equal((status.structuredContent as { running?: boolean }).running, false);
    } finally {
      await client.close();
    }
  });

  test("opencode serve in the site lists the tools of the files init wrote", async () => {
    assert.ok(site);
    const opencode = await startOpenCode(site.root);
    try {
      const ids = await opencode.request<string[]>("GET", "/experimental/tool/ids", site.root);
      const missing = TOOLS.filter((name) => !ids.includes(name));
      assert.deepEqual(missing, [], `missing: ${missing.join(", ")}\n${opencode.output().slice(-3000)}`);
    } finally {
      await opencode.stop();
    }
  });

  test("installed alone (an MCP or CLI user): no install script, no OpenCode plugin, clear errors", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vigie-alone-"));
    try {
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "vigie-alone", private: true }));
      const install = await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", tarball], {
        cwd: dir,
        timeoutMs: 600_000,
      });
      assert.equal(install.code, 0, install.stderr);
      const modules = join(dir, "node_modules");
      const manifests = readdirSync(modules).flatMap((name) =>
        name.startsWith("@") ? readdirSync(join(modules, name)).map((inner) => join(name, inner)) : name.startsWith(".") ? [] : [name],
      );
      const withScripts = manifests.filter((name) => {
        const manifest = JSON.parse(readFileSync(join(modules, name, "package.json"), "utf8")) as { scripts?: Record<string, string> };
        return ["preinstall", "install", "postinstall"].some((script) => manifest.scripts?.[script]);
      });
      assert.deepEqual(withScripts, [], "no dependency has an install script");
      assert.ok(!existsSync(join(modules, "@opencode-ai", "plugin")), "the optional peer is not installed");
      const du = await run("du", ["-sk", "node_modules"], { cwd: dir, timeoutMs: 60_000 });
      console.log(
        `installed alone: ${manifests.length} packages, ${(Number.parseInt(du.stdout, 10) / 1024).toFixed(0)} MB in node_modules`,
      );

      const node = join(BLOG_ROOT, "node_modules", ".bin", "node");
      const probe = `try { await import("vigie/opencode"); console.log("loaded") } catch (error) { console.log(error.message) }
const core = await import("vigie"); const mcp = await import("vigie/mcp");
console.log(typeof core.validate, typeof core.resolveProject, typeof mcp.serveMcp);`;
      const imported = await run(node, ["--input-type=module", "-e", probe], { cwd: dir, timeoutMs: 60_000 });
      assert.match(imported.stdout, /needs the package "@opencode-ai\/plugin".*npm install -D @opencode-ai\/plugin/);
      assert.match(imported.stdout, /function function function/);

      // The system Node of this machine is 20: the bin says which Node it needs (no project Node here).
      const system = await run("/usr/bin/node", ["-p", "process.versions.node"], { cwd: dir, timeoutMs: 30_000 }).catch(() => undefined);
      const [major = 99, minor = 0] = (system?.stdout.trim() ?? "99").split(".").map(Number);
      if (system?.code === 0 && (major < 22 || (major === 22 && minor < 12))) {
        const old = await run("/usr/bin/node", [join(modules, "vigie", "bin", "vigie.js"), "--version"], { cwd: dir, timeoutMs: 30_000 });
        assert.equal(old.code, 2);
        assert.match(old.stderr, /^vigie: needs Node 22\.12 or newer \(this is 2\d\.[\d.]+\)\./);
        assert.doesNotMatch(old.stderr, /\n\s+at /, "no stack trace");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("doctor says what it found: Node, Astro, Chromium, the site, OpenCode", async () => {
    assert.ok(site);
    const result = await site.vigie(["doctor", "--json"], 60_000);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const report = JSON.parse(result.stdout) as { ok: boolean; items: { name: string; status: string; found: string }[] };
    const item = (name: string) => report.items.find((entry) => entry.name === name);
    assert.equal(item("Node")?.status, "ok");
    assert.match(item("Astro")?.found ?? "", /^7\.3\.5/);
    assert.equal(item("Chromium")?.status, "ok");
    assert.match(item("Critical routes")?.found ?? "", /\//);
  });
});
