// vigie as a new user gets it: `npm pack` of packages/vigie (its README, licence and changelog in it), installed with npm into a new
// minimal Astro site made from registry packages only, then `npx vigie init`, `validate`,
// `mcp` (listed to the MCP SDK's own client); the agents in the same site are in
// agents.npm.test.ts. Slow (npm install, a build and a crawl): about 5 minutes on 2 cores.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { BLOG_ROOT } from "../packages/vigie/test/support/blog.ts";
import {
  assertFailNaming,
  assertMcpLists,
  assertPass,
  diskKb,
  figure,
  INIT_FILES,
  initSite,
  seconds,
  validateSite,
} from "./support/package-checks.ts";
import { endAll, type InstalledSite, installSite, MINIMAL_SITE, packedVigie, run } from "./support/site-install.ts";

describe("the vigie package, installed into a new Astro site", { timeout: 1_200_000 }, () => {
  let site: InstalledSite | undefined;
  let tarball = "";
  let initMs = 0;

  before(async () => {
    const packed = await packedVigie();
    tarball = packed.tarball;
    figure(`tarball: ${(packed.bytes / 1024).toFixed(0)} kB${packed.cached ? " (packed earlier)" : ` packed in ${seconds(packed.ms)}`}`);
    site = await installSite(MINIMAL_SITE, packed.tarball);
    figure(`the minimal site: npm install ${seconds(site.installMs)}`);
  });

  after(() => {
    endAll();
    site?.remove();
  });

  test("the tarball holds the README, the licence and the changelog, beside the compiled code", async () => {
    const listing = await run("tar", ["-tvzf", tarball], { cwd: tmpdir(), timeoutMs: 60_000 });
    assert.equal(listing.code, 0, listing.stderr);
    const entries = listing.stdout
      .trim()
      .split("\n")
      .map((line) => {
        const [, , size = "0", , , path = ""] = line.trim().split(/\s+/);
        return { path: path.replace(/^package\//, ""), size: Number(size) };
      });
    const paths = entries.map((entry) => entry.path);
    for (const file of ["README.md", "LICENSE", "CHANGELOG.md", "package.json", "dist/cli/main.js"])
      assert.ok(paths.includes(file), `${file} is not in the tarball`);
    assert.ok(!paths.some((path) => path.endsWith(".test.ts")), "no test file in the tarball");
    const license = await run("tar", ["-xzOf", tarball, "package/LICENSE"], { cwd: tmpdir(), timeoutMs: 60_000 });
    assert.match(license.stdout, /^MIT License/);
    const unpacked = entries.reduce((sum, entry) => sum + entry.size, 0);
    figure(`tarball contents: ${entries.length} files, ${(unpacked / 1024 / 1024).toFixed(2)} MB unpacked`);
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
    initMs = (await initSite(site)).ms;
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
    const validated = await validateSite(site, "report-clean.json");
    figure(`the minimal site: init ${seconds(initMs)} + validate ${seconds(validated.result.ms)}`);
    assertPass(validated);
  });

  test("validate: a broken internal link is a FAIL naming the page and the tool", async () => {
    assert.ok(site);
    const about = site.read("src/pages/about.astro");
    site.write("src/pages/about.astro", about.replace('<a href="/">home</a>', '<a href="/">home</a> <a href="/missing-page/">missing</a>'));
    try {
      assertFailNaming(await validateSite(site, "report-broken.json"), {
        tools: ["blog_build_links"],
        page: /\/about\//,
        what: /missing-page/,
      });
    } finally {
      site.write("src/pages/about.astro", about);
    }
  });

  test("npx vigie mcp lists the sixteen tools to the MCP SDK's client", async () => {
    assert.ok(site);
    await assertMcpLists(site.root);
  });

  test("installed alone: no install script, no OpenCode plugin needed", async () => {
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
      figure(
        `installed alone: ${manifests.length} packages, node_modules/vigie ${((await diskKb(dir, "node_modules/vigie")) / 1024).toFixed(1)} MB, node_modules ${((await diskKb(dir, "node_modules")) / 1024).toFixed(0)} MB`,
      );

      const node = join(BLOG_ROOT, "node_modules", ".bin", "node");
      const probe = `try { const { openCodeTools } = await import("vigie/opencode"); console.log("loaded", Object.keys(openCodeTools("dev")).length) } catch (error) { console.log(error.message) }
const core = await import("vigie"); const mcp = await import("vigie/mcp");
console.log(typeof core.validate, typeof core.resolveProject, typeof mcp.serveMcp);`;
      const imported = await run(node, ["--input-type=module", "-e", probe], { cwd: dir, timeoutMs: 60_000 });
      assert.match(imported.stdout, /^loaded 6$/m, "vigie/opencode loads without the plugin");
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
