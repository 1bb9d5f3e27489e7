// A server-rendered site on @astrojs/node, made from npm: prerendered pages (home, about, the
// posts of a content collection, 404), pages rendered on demand (/posts/, /now/, /greet/[name]/)
// and an endpoint the home fetches. `npx vigie validate` reads how it renders from Astro,
// crawls the build through the adapter's own server (astro preview) and gives no FAIL; then
// each fault alone, made on the same copy and undone, is a FAIL naming the page and its source.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Finding, ValidationReport } from "../packages/vigie/src/core/validate/findings.ts";
import { type InstalledSite, installSite, packedVigie, type SiteSpec } from "./support/site-install.ts";

const layout = `---
const { title } = Astro.props;
---
<html lang="en">
  <head>
    <meta charset="utf-8" /><meta name="viewport" content="width=device-width" /><link rel="icon" href="data:," />
    <link rel="stylesheet" href="/styles/site.css" />
    <title>{title}</title>
  </head>
  <body>
    <nav><a href="/">Home</a> <a href="/about/">About</a> <a href="/posts/">Posts</a> <a href="/now/">Now</a> <a href="/greet/ann/">Greet Ann</a></nav>
    <main><slot /></main>
  </body>
</html>
`;

const post = (n: number) => `---
title: Post ${n}
---

Post number ${n}. Back to [all posts](/posts/).
`;

export const SSR_NODE_SITE: SiteSpec = {
  name: "ssr-node",
  dependencies: { "@astrojs/node": "11.1.6" },
  files: {
    "astro.config.mjs": `import node from "@astrojs/node";
import { defineConfig } from "astro/config";

export default defineConfig({ output: "server", adapter: node({ mode: "standalone" }) });
`,
    "vigie.config.json": JSON.stringify({ checks: { check: false }, budgets: { loadMs: 5000 } }),
    "public/styles/site.css": "body { font-family: sans-serif; margin: 2rem; }\n",
    "src/layouts/Base.astro": layout,
    "src/content.config.ts": `import { defineCollection } from "astro:content";
import { glob } from "astro/loaders";
import { z } from "astro/zod";

export const collections = {
  posts: defineCollection({ loader: glob({ pattern: "*.md", base: "./src/content/posts" }), schema: z.object({ title: z.string() }) }),
};
`,
    "src/content/posts/post-1.md": post(1),
    "src/content/posts/post-2.md": post(2),
    "src/content/posts/post-3.md": post(3),
    "src/pages/index.astro": `---
import Base from "../layouts/Base.astro";
export const prerender = true;
---
<Base title="Home">
  <h1>Home</h1>
  <p id="stats">Loading the stats.</p>
  <script>
    const response = await fetch("/api/stats.json");
    const stats = await response.json();
    document.getElementById("stats").textContent = \`\${stats.posts} posts\`;
  </script>
</Base>
`,
    "src/pages/about.astro": `---
import Base from "../layouts/Base.astro";
export const prerender = true;
---
<Base title="About">
  <h1>About</h1>
  <p>A small site, partly rendered on demand.</p>
</Base>
`,
    "src/pages/404.astro": `---
import Base from "../layouts/Base.astro";
export const prerender = true;
---
<Base title="Not found"><h1>Not found</h1></Base>
`,
    "src/pages/posts/[id].astro": `---
import { getCollection, render } from "astro:content";
import Base from "../../layouts/Base.astro";
export const prerender = true;
export async function getStaticPaths() {
  return (await getCollection("posts")).map((entry) => ({ params: { id: entry.id }, props: { entry } }));
}
const { entry } = Astro.props;
const { Content } = await render(entry);
---
<Base title={entry.data.title}><h1>{entry.data.title}</h1><Content /></Base>
`,
    "src/pages/posts/index.astro": `---
import { getCollection } from "astro:content";
import Base from "../../layouts/Base.astro";
const posts = await getCollection("posts");
---
<Base title="Posts">
  <h1>Posts</h1>
  <ul>{posts.map((entry) => <li><a href={\`/posts/\${entry.id}/\`}>{entry.data.title}</a></li>)}</ul>
</Base>
`,
    "src/pages/now.astro": `---
import Base from "../layouts/Base.astro";
const now = new Date().toISOString().slice(0, 10);
---
<Base title="Now">
  <h1>Now</h1>
  <p>Today is {now}.</p>
</Base>
`,
    "src/pages/greet/[name].astro": `---
import Base from "../../layouts/Base.astro";
const { name } = Astro.params;
if (name === "zed") throw new Error("no greeting for zed");
---
<Base title={\`Hello \${name}\`}><h1>Hello {name}</h1></Base>
`,
    "src/pages/api/stats.json.ts": `import { getCollection } from "astro:content";

export async function GET() {
  const posts = await getCollection("posts");
  return Response.json({ posts: posts.length });
}
`,
  },
};

let site: InstalledSite;
before(async () => {
  const { tarball } = await packedVigie();
  site = await installSite(SSR_NODE_SITE, tarball);
  console.log(`# npm install (ssr-node): ${site.installMs} ms`);
});
after(() => site?.remove());

interface Run {
  report: ValidationReport;
  code: number | null;
  ms: number;
  output: string;
}

async function validate(file: string): Promise<Run> {
  const result = await site.vigie(["validate", "--json", file], 600_000);
  let report: ValidationReport;
  try {
    report = JSON.parse(site.read(file)) as ValidationReport;
  } catch {
    assert.fail(
      `validate wrote no report (exit ${result.code ?? result.signal}):\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`,
    );
  }
  const fails = report.findings.filter((f) => f.severity === "fail");
  console.log(
    `# ${file}: ${report.verdict} in ${report.durationS} s; ${fails.map((f) => `${f.page ?? ""} ${f.file ?? ""} ${f.message}`).join(" | ")}`,
  );
  return { report, code: result.code, ms: result.ms, output: `${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}` };
}

const list = (findings: Finding[]) =>
  findings.map((f) => `${f.severity} ${f.tool} ${f.page ?? ""} ${f.file ?? ""}: ${f.message}`).join("\n");

/** A FAIL with a failing finding on `page` whose file is `file` (and matches `what`). */
function assertFailOn(run: Run, page: string, file: RegExp, what: RegExp): Finding {
  assert.equal(run.report.verdict, "FAIL", `${list(run.report.findings)}\n${run.output}`);
  assert.equal(run.code, 1);
  const finding = run.report.findings.find(
    (f) => f.severity === "fail" && f.page === page && file.test(f.file ?? "") && what.test(f.message),
  );
  assert.ok(finding, `no failure on ${page} in ${file}:\n${list(run.report.findings)}`);
  return finding;
}

/** Runs `check` with `path` edited by `edit`, then puts the file back. */
async function withEdit(path: string, edit: (text: string) => string, check: () => Promise<void>): Promise<void> {
  const original = site.read(path);
  site.write(path, edit(original));
  try {
    await check();
  } finally {
    site.write(path, original);
  }
}

describe("an SSR site on @astrojs/node", { timeout: 1_800_000 }, () => {
  test("clean: no FAIL; the rendering read from the build; every page through astro preview", async () => {
    const run = await validate("report-clean.json");
    assert.notEqual(run.report.verdict, "FAIL", `${list(run.report.findings)}\n${run.output}`);
    const rendering = run.report.site?.rendering;
    assert.equal(rendering?.output, "server");
    assert.equal(rendering?.adapter, "@astrojs/node");
    assert.equal(rendering?.serve, "preview");
    const renders = Object.fromEntries((rendering?.routes ?? []).map((route) => [route.route, `${route.renders} ${route.file}`]));
    assert.equal(renders["/now"], "on demand src/pages/now.astro");
    assert.equal(renders["/api/stats.json"], "endpoint src/pages/api/stats.json.ts");
    assert.equal(renders["/posts/[id]"], "prerendered src/pages/posts/[id].astro");
    const paths = run.report.pages.map((page) => page.path);
    for (const path of ["/", "/about/", "/now/", "/posts/", "/posts/post-1/", "/greet/ann/"])
      assert.ok(paths.includes(path), `${path} not crawled: ${paths}`);
    assert.ok(
      run.report.pages.every((page) => page.status === 200),
      JSON.stringify(run.report.pages),
    );
    assert.ok(!run.report.findings.some((f) => /^\/(client|server)\//.test(f.page ?? "")), list(run.report.findings));
  });

  test("an on-demand page that throws for one parameter: FAIL naming the page, the error and its source line", async () => {
    await withEdit(
      "src/pages/greet/[name].astro",
      (text) => text.replace('name === "zed"', 'name === "ann"'),
      async () => {
        const run = await validate("report-throw.json");
        const finding = assertFailOn(run, "/greet/ann/", /^src\/pages\/greet\/\[name\]\.astro:4$/, /500.*no greeting for zed/);
        assert.match(finding.message, /Error: no greeting for zed/);
      },
    );
  });

  test("the endpoint answering 500: FAIL on the page that requests it, naming the endpoint's source", async () => {
    await withEdit(
      "src/pages/api/stats.json.ts",
      (text) => text.replace("const posts =", 'throw new Error("stats are down");\n  const posts ='),
      async () => {
        const run = await validate("report-endpoint.json");
        const finding = assertFailOn(run, "/", /^src\/pages\/api\/stats\.json\.ts/, /500 .*\/api\/stats\.json/);
        assert.match(finding.message, /stats are down/);
      },
    );
  });

  test("a broken link on an on-demand page: FAIL naming that page and the line of the link", async () => {
    await withEdit(
      "src/pages/now.astro",
      (text) => text.replace("<p>Today", '<p><a href="/then/">Then</a></p>\n  <p>Today'),
      async () => {
        const run = await validate("report-link.json");
        const finding = assertFailOn(run, "/now/", /^src\/pages\/now\.astro:7$/, /broken link to \/then\//);
        assert.equal(run.report.findings.filter((f) => /\/then\//.test(f.message)).length, 1, list(run.report.findings));
        assert.equal(finding.rule, "broken-link");
      },
    );
  });

  test("a missing stylesheet on a prerendered page: FAIL naming the page and its source", async () => {
    await withEdit(
      "src/pages/about.astro",
      (text) => text.replace("<h1>About</h1>", '<link rel="stylesheet" href="/styles/gone.css" />\n  <h1>About</h1>'),
      async () => {
        const run = await validate("report-css.json");
        assertFailOn(run, "/about/", /^src\/pages\/about\.astro/, /gone\.css/);
        assert.ok(!run.report.findings.some((f) => /^\/(client|server)\//.test(f.page ?? "")), list(run.report.findings));
      },
    );
  });
});
