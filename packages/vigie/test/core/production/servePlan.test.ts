// The serve plan of each line of the adapters' table: no adapter, the four adapters vigie
// knows and one it does not, read from a config as users write it; the server each build gets,
// the folder it needs, and the command of that server when it runs as a process of its own
// (dev_start --mode preview). Then vigie's static server run that way, for real: the command
// dev_start runs answers the build's pages under the base, the 404 page with its status.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { readSite } from "../../../src/core/astro/site.ts";
import { startDevServer } from "../../../src/core/devServer/index.ts";
import { freePort, startInGroup } from "../../../src/core/process/group.ts";
import { groupAlive } from "../../../src/core/process/kill.ts";
import { ADAPTERS, adapterServing, NO_ADAPTER, UNKNOWN_ADAPTER } from "../../../src/core/production/adapters.ts";
import { plannedCommand, type ServePlan, servePlan } from "../../../src/core/production/servePlan.ts";
import { projectAt } from "../../../src/core/project.ts";
import { sleep } from "../../../src/core/wait.ts";

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function site(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "vigie-plan-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const config = (adapter?: { module: string; name: string }, more = "") =>
  adapter
    ? `import ${adapter.name} from "${adapter.module}";\nexport default { adapter: ${adapter.name}()${more} };\n`
    : `export default {${more}};\n`;

/** Each line of the table: the config's adapter, the plan expected (folders relative to the root). */
const LINES: { name: string; adapter?: { module: string; name: string }; serve: ServePlan["serve"]; needs: string; output?: string }[] = [
  { name: "no adapter (a static build)", serve: "static", needs: "dist" },
  { name: "@astrojs/node", adapter: { module: "@astrojs/node", name: "node" }, serve: "preview", needs: "dist" },
  { name: "@astrojs/cloudflare", adapter: { module: "@astrojs/cloudflare", name: "cloudflare" }, serve: "preview", needs: "dist" },
  {
    name: "@astrojs/vercel",
    adapter: { module: "@astrojs/vercel", name: "vercel" },
    serve: "output",
    needs: ".vercel/output",
    output: "vercel",
  },
  { name: "@astrojs/netlify", adapter: { module: "@astrojs/netlify", name: "netlify" }, serve: "output", needs: "dist", output: "netlify" },
  { name: "an adapter vigie does not know", adapter: { module: "@deno/astro-adapter", name: "deno" }, serve: "dev", needs: "dist" },
];

describe("the serve plan, line by line of the adapters' table", () => {
  test("the table has a line for each adapter vigie knows, one for none, one for the others", () => {
    assert.deepEqual(Object.keys(ADAPTERS).sort(), ["@astrojs/cloudflare", "@astrojs/netlify", "@astrojs/node", "@astrojs/vercel"]);
    assert.equal(adapterServing(undefined), NO_ADAPTER);
    assert.equal(adapterServing("@deno/astro-adapter"), UNKNOWN_ADAPTER);
  });

  for (const line of LINES) {
    test(`${line.name}: ${line.serve}, needing ${line.needs}/`, () => {
      const root = site({ "astro.config.mjs": config(line.adapter) });
      const project = projectAt(root);
      const plan = servePlan(readSite(project));
      assert.equal(plan.serve, line.serve);
      assert.equal(plan.needs, join(root, line.needs));
      assert.equal(plan.adapter, line.adapter?.module);
      assert.equal(plan.base, "/");
      if (plan.serve === "output") {
        assert.equal(plan.output, line.output);
        assert.equal(plan.publish, join(root, "dist"));
      }
      if (plan.serve === "static") assert.equal(plan.dir, join(root, "dist"));
      // As a process of its own: vigie's servers through the runner, with the port left to fill in.
      const command = plannedCommand(project, plan, "{port}");
      if (line.serve === "static" || line.serve === "output") {
        assert.ok(command, "a command");
        assert.match(command[1] ?? "", /outputRunner\.[jt]s$/);
        const options = JSON.parse((command[2] ?? "").replace("{port}", "4567")) as Record<string, unknown>;
        assert.equal(options.port, 4567);
        assert.equal(options.kind, line.output ?? "static");
      } else assert.equal(command, undefined, "astro preview and the dev server are not vigie's to run");
    });
  }

  test("an adapter vigie does not know: dev_start --mode preview says so and starts nothing", async () => {
    const root = site({ "astro.config.mjs": config({ module: "@deno/astro-adapter", name: "deno" }), "dist/index.html": "<h1>Home</h1>" });
    const result = await startDevServer(readSite(projectAt(root)), { mode: "preview" });
    assert.equal(result.kind, "failed");
    assert.ok(result.kind === "failed" && result.reason === "no-preview", JSON.stringify(result));
    assert.match(result.error, /@deno\/astro-adapter is not one vigie knows how to serve/);
  });

  test("the plan follows the config's outDir and base", () => {
    const root = site({ "astro.config.mjs": config(undefined, ' outDir: "./build", base: "/docs"') });
    const plan = servePlan(readSite(projectAt(root)));
    assert.equal(plan.serve, "static");
    assert.equal(plan.needs, join(root, "build"));
    assert.equal(plan.base, "/docs/");
  });
});

describe("vigie's static server as dev_start runs it", () => {
  test("the planned command serves the build under its base, 404.html for the rest", async () => {
    const root = site({
      "astro.config.mjs": config(undefined, ' base: "/docs"'),
      "dist/index.html": "<h1>Home</h1>",
      "dist/about/index.html": "<h1>About</h1>",
      "dist/404.html": "<h1>Not found</h1>",
    });
    const project = projectAt(root);
    const port = await freePort();
    const argv = plannedCommand(project, servePlan(readSite(project)), port) ?? [];
    const [file = "", ...args] = argv;
    const server = startInGroup(file, args, { cwd: root });
    try {
      let home: Response | undefined;
      for (let tries = 0; tries < 100 && !home; tries++) {
        home = await fetch(`http://127.0.0.1:${port}/docs/`).catch(() => undefined);
        if (!home) await sleep(100);
      }
      assert.ok(home, `the server answered: ${server.output()}`);
      assert.equal(home.status, 200);
      assert.match(await home.text(), /Home/);
      assert.equal(home.headers.get("content-type"), "text/html; charset=utf-8");
      const about = await fetch(`http://127.0.0.1:${port}/docs/about/`);
      assert.match(await about.text(), /About/);
      const missing = await fetch(`http://127.0.0.1:${port}/docs/nowhere/`);
      assert.equal(missing.status, 404);
      assert.match(await missing.text(), /Not found/);
      assert.match(server.output(), /vigie static server on http:\/\/127\.0\.0\.1:\d+\/docs\//);
    } finally {
      await server.stop();
    }
    assert.ok(server.pid && !groupAlive(server.pid), "the server's group is gone");
  });
});
