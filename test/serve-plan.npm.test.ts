// One serve plan: validate's server on the build and `dev_start --mode preview` serve a site the
// same way. One site made from npm (astro, @astrojs/node, @astrojs/vercel), built three times: a
// static build, on @astrojs/node, on @astrojs/vercel (each with pages rendered on demand but the
// static one). For each build, both callers follow the same plan (vigie's static server, the
// adapter's `astro preview`, vigie's offline Vercel server), and the same pages get the same
// answers from both: status, content type and body, the 404 page included. dev_start's server is
// run as every dev server is (status, logs and stop see it); both are ended whatever happens.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { readSite } from "../packages/vigie/src/core/astro/site.ts";
import { findAstroServer } from "../packages/vigie/src/core/devServer/astroLock.ts";
import {
  devServerStatus,
  readDevLogs,
  readDevServerRecord,
  startDevServer,
  stopDevServer,
} from "../packages/vigie/src/core/devServer/index.ts";
import { freePort } from "../packages/vigie/src/core/process/group.ts";
import { servePlan } from "../packages/vigie/src/core/production/servePlan.ts";
import { type Project, projectAt } from "../packages/vigie/src/core/project.ts";
import { productionServer, type ValidateContext } from "../packages/vigie/src/core/validate/steps/context.ts";
import { waitUntil } from "../packages/vigie/src/core/wait.ts";
import { type InstalledSite, installSite, packedVigie, run, type SiteSpec } from "./support/site-install.ts";

const page = (title: string, frontmatter = "", body = "") => `---
${frontmatter}
---
<html lang="en">
  <head><meta charset="utf-8" /><meta name="viewport" content="width=device-width" /><link rel="icon" href="data:," /><title>${title}</title></head>
  <body><nav><a href="/">Home</a> <a href="/about/">About</a></nav><main><h1>${title}</h1>${body}</main></body>
</html>
`;

const SERVE_PLAN_SITE: SiteSpec = {
  name: "serve-plan",
  dependencies: { "@astrojs/node": "11.1.6", "@astrojs/vercel": "11.0.11" },
  files: {
    "src/pages/index.astro": page("Home", "", "<p>The home page.</p>"),
    "src/pages/about.astro": page("About", "", "<p>Prerendered.</p>"),
    "src/pages/404.astro": page("Not found"),
  },
};

/** Rendered on demand: only with an adapter. */
const ON_DEMAND = {
  "src/pages/now.astro": page(
    "Now",
    "export const prerender = false;\nconst where = Astro.url.pathname;",
    "<p>Rendered on demand at {where}.</p>",
  ),
  "src/pages/api/hello.json.ts": 'export const prerender = false;\n\nexport const GET = () => Response.json({ hello: "world" });\n',
};

interface Build {
  name: string;
  config: string;
  serve: "static" | "preview" | "output";
  /** The command dev_start runs, as a pattern. */
  command: RegExp;
  onDemand: boolean;
}

const BUILDS: Build[] = [
  {
    name: "a static site",
    config: 'import { defineConfig } from "astro/config";\n\nexport default defineConfig({});\n',
    serve: "static",
    command: /outputRunner\.[jt]s \{"kind":"static"/,
    onDemand: false,
  },
  {
    name: "a node site",
    config:
      'import node from "@astrojs/node";\nimport { defineConfig } from "astro/config";\n\nexport default defineConfig({ output: "server", adapter: node({ mode: "standalone" }) });\n',
    serve: "preview",
    command: /npm run preview/,
    onDemand: true,
  },
  {
    name: "a Vercel site",
    config:
      'import vercel from "@astrojs/vercel";\nimport { defineConfig } from "astro/config";\n\nexport default defineConfig({ adapter: vercel() });\n',
    serve: "output",
    command: /outputRunner\.[jt]s \{"kind":"vercel"/,
    onDemand: true,
  },
];

interface Answer {
  status: number;
  type: string | null;
  body: string;
}

async function answersOf(base: string, paths: string[]): Promise<Record<string, Answer>> {
  const answers: Record<string, Answer> = {};
  for (const path of paths) {
    const response = await fetch(`${base.replace(/\/$/, "")}${path}`, { redirect: "manual" });
    answers[path] = { status: response.status, type: response.headers.get("content-type"), body: await response.text() };
  }
  return answers;
}

/** The two answers to `path` are the same; a difference is shown short (a diff of whole pages takes minutes). */
function assertSameAnswer(path: string, preview: Answer | undefined, validate: Answer | undefined): void {
  assert.ok(preview && validate, path);
  const where = [...preview.body].findIndex((char, index) => char !== validate.body[index]);
  const at = where < 0 ? preview.body.length : where;
  const body = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 80), at + 120));
  const shown = `${path}: dev_start ${preview.status} ${preview.type} ${body(preview.body)}\nvalidate ${validate.status} ${validate.type} ${body(validate.body)}`;
  assert.ok(preview.status === validate.status && preview.type === validate.type && preview.body === validate.body, shown);
}

/** `astro preview` as its user runs it in a terminal, on a port of its own, once it answers; `end` ends its process group. */
async function usersPreview(root: string): Promise<{ url: string; end: () => void }> {
  const port = await freePort();
  const child = spawn("npx", ["--no-install", "astro", "preview", "--port", String(port), "--host", "127.0.0.1"], {
    cwd: root,
    detached: true,
    stdio: "ignore",
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: "1" },
  });
  const end = () => {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  };
  const url = `http://127.0.0.1:${port}/`;
  const by = Date.now() + 60_000;
  for (;;) {
    const answered = await fetch(url).then(
      (response) => response.status,
      () => 0,
    );
    if (answered && existsSync(join(root, ".astro", "preview.json"))) return { url, end };
    if (Date.now() > by || child.exitCode !== null) {
      end();
      assert.fail(`the user's astro preview did not answer at ${url}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

let site: InstalledSite;
before(async () => {
  const { tarball } = await packedVigie();
  site = await installSite(SERVE_PLAN_SITE, tarball);
  console.log(`# npm install (serve-plan): ${site.installMs} ms${site.cached ? " (cached)" : ""}`);
});
after(() => site?.remove());

describe("validate and dev_start --mode preview serve a build the same way", { timeout: 1_200_000 }, () => {
  for (const build of BUILDS) {
    test(`${build.name}: the same plan (${build.serve}), the same pages answered the same`, async () => {
      const project: Project = projectAt(site.root);
      for (const folder of ["dist", ".vercel", ".astro"]) rmSync(join(site.root, folder), { recursive: true, force: true });
      for (const path of Object.keys(ON_DEMAND)) rmSync(join(site.root, path), { force: true });
      if (build.onDemand) for (const [path, text] of Object.entries(ON_DEMAND)) site.write(path, text);
      site.write("astro.config.mjs", build.config);
      const built = await run("npx", ["--no-install", "astro", "build"], { cwd: site.root, timeoutMs: 300_000 });
      assert.equal(built.code, 0, `astro build:\n${built.stdout.slice(-2000)}\n${built.stderr.slice(-2000)}`);

      const plan = servePlan(readSite(project));
      assert.equal(plan.serve, build.serve);
      const paths = ["/", "/about/", "/nowhere/", ...(build.onDemand ? ["/now/", "/api/hello.json"] : [])];

      // The user's own `astro preview` of the same build, running: Astro 7's lock names it, and
      // validate's preview must start beside it all the same.
      const users = build.serve === "preview" ? await usersPreview(site.root) : undefined;
      // validate's server on the build: the plan, started in this process's care.
      const ctx = { project, site: readSite(project), options: {}, built: true } as unknown as ValidateContext;
      const started = Date.now();
      let fromValidate: Record<string, Answer>;
      try {
        const production = await productionServer(ctx);
        assert.ok(production, "validate has a server on the build");
        try {
          fromValidate = await answersOf(production.url, paths);
        } finally {
          await production.close();
        }
        if (users) assert.equal((await fetch(users.url)).status, 200, "the user's preview still serves");
      } finally {
        users?.end();
      }
      const validateMs = Date.now() - started;
      // The user's preview, killed, may live on a moment on a loaded machine: Astro's lock names it until it is gone.
      assert.ok(
        await waitUntil(() => findAstroServer(project).kind !== "live", { timeoutMs: 15_000, intervalMs: 100 }),
        "the user's preview ended",
      );

      // dev_start --mode preview: the same plan, as a server of its own that status, logs and stop see.
      const start = await startDevServer(readSite(project), { mode: "preview", timeoutMs: 120_000 });
      let fromPreview: Record<string, Answer>;
      try {
        assert.equal(start.kind, "started", JSON.stringify(start));
        assert.ok(start.kind === "started" && start.url, "a URL");
        assert.match(readDevServerRecord(project)?.command.join(" ") ?? "", build.command);
        const status = await devServerStatus(project);
        assert.equal(status.kind, "running", JSON.stringify(status));
        fromPreview = await answersOf(start.url, paths);
        const logs = await readDevLogs(project);
        assert.ok(logs.lines.length > 0, `the log is read: ${JSON.stringify(logs).slice(0, 500)}`);
      } finally {
        const stopped = await stopDevServer(project);
        assert.equal(stopped.kind, "stopped", JSON.stringify(stopped));
      }
      console.log(
        `# ${build.name}: plan ${plan.serve}; validate's server ${validateMs} ms; dev_start ready in ${start.kind === "started" ? start.readyMs : "?"} ms`,
      );

      for (const path of paths) assertSameAnswer(path, fromPreview[path], fromValidate[path]);
      assert.equal(fromValidate["/"]?.status, 200);
      assert.match(fromValidate["/"]?.body ?? "", /<h1>Home<\/h1>/);
      assert.match(fromValidate["/about/"]?.body ?? "", /<h1>About<\/h1>/);
      assert.equal(fromValidate["/nowhere/"]?.status, 404);
      assert.match(fromValidate["/nowhere/"]?.body ?? "", /<h1>Not found<\/h1>/);
      if (build.onDemand) {
        assert.match(fromValidate["/now/"]?.body ?? "", /Rendered on demand at \/now\//);
        assert.deepEqual(JSON.parse(fromValidate["/api/hello.json"]?.body ?? "{}"), { hello: "world" });
      }
    });
  }
});
