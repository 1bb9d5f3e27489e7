// Mostly static sites with a few pages rendered on demand (`output: "static"`, `prerender =
// false` on them), made from npm as users write them: on Vercel and Netlify (MDX, islands of
// Preact `client:idle`, Solid `client:media`, Svelte `client:visible`, `<ClientRouter />`),
// whose build output vigie serves offline as the platform does, and on Cloudflare (its own
// server, `astro preview` in workerd). Clean: no FAIL; an on-demand page that throws: a FAIL
// naming the page and its source line.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import type { Finding, ValidationReport } from "../packages/vigie/src/core/validate/steps/findings.ts";
import { type InstalledSite, installSite, packedVigie, type SiteSpec } from "./support/site-install.ts";

const page = (title: string, frontmatter: string, body: string) => `---
${frontmatter}
---
<html lang="en">
  <head><meta charset="utf-8" /><meta name="viewport" content="width=device-width" /><link rel="icon" href="data:," /><title>${title}</title></head>
  <body><nav><a href="/">Home</a> <a href="/about/">About</a> <a href="/now/">Now</a></nav><main><h1>${title}</h1>${body}</main></body>
</html>
`;

const THROWS = 'throw new Error("the clock is broken");\n';

function hybridSite(adapter: "cloudflare", version: string, more: Record<string, string> = {}): SiteSpec {
  return {
    name: `hybrid-${adapter}`,
    dependencies: { [`@astrojs/${adapter}`]: version },
    files: {
      "astro.config.mjs": `import ${adapter} from "@astrojs/${adapter}";
import { defineConfig } from "astro/config";

export default defineConfig({ adapter: ${adapter}() });
`,
      // Offline, Cloudflare's dev server spends seconds on lookups that fail: a loaded machine may take it past 30 s.
      "vigie.config.json": JSON.stringify({ checks: { check: false }, budgets: { loadMs: 5000 }, dev: { readyTimeoutS: 120 } }),
      "src/pages/index.astro": page(
        "Home",
        "",
        `<p id="hello">…</p>
<script>
  const response = await fetch("/api/hello.json");
  document.getElementById("hello").textContent = (await response.json()).hello;
</script>`,
      ),
      "src/pages/about.astro": page("About", "", "<p>Prerendered.</p>"),
      "src/pages/now.astro": page(
        "Now",
        "export const prerender = false;\nconst day = new Date().toISOString().slice(0, 10);",
        "<p>{day}</p>",
      ),
      "src/pages/api/hello.json.ts": 'export const prerender = false;\n\nexport const GET = () => Response.json({ hello: "world" });\n',
      ...more,
    },
  };
}

const layout = `---
import { ClientRouter } from "astro:transitions";
const { title } = Astro.props;
---
<html lang="en">
  <head>
    <meta charset="utf-8" /><meta name="viewport" content="width=device-width" /><link rel="icon" href="data:," />
    <title>{title}</title>
    <ClientRouter />
  </head>
  <body>
    <nav><a href="/">Home</a> <a href="/about/">About</a> <a href="/now/">Now</a></nav>
    <main><h1>{title}</h1><slot /></main>
  </body>
</html>
`;

const ISLANDS_PACKAGES = {
  "@astrojs/mdx": "8.0.2",
  "@astrojs/preact": "6.0.5",
  preact: "10.29.8",
  "@astrojs/solid-js": "7.0.2",
  "solid-js": "1.9.20",
  "@astrojs/svelte": "9.0.1",
  svelte: "5.57.3",
};

/** A hybrid site with islands of three frameworks, MDX and view transitions, as the integrations' docs write them. */
function islandsSite(adapter: "vercel" | "netlify", version: string): SiteSpec {
  return {
    name: `hybrid-${adapter}`,
    dependencies: { [`@astrojs/${adapter}`]: version, ...ISLANDS_PACKAGES },
    files: {
      "astro.config.mjs": `import mdx from "@astrojs/mdx";
import preact from "@astrojs/preact";
import solid from "@astrojs/solid-js";
import svelte from "@astrojs/svelte";
import ${adapter} from "@astrojs/${adapter}";
import { defineConfig } from "astro/config";

export default defineConfig({
  adapter: ${adapter}(),
  integrations: [mdx(), preact({ include: ["**/preact/*"] }), solid({ include: ["**/solid/*"] }), svelte()],
});
`,
      "vigie.config.json": JSON.stringify({ checks: { check: false }, budgets: { loadMs: 5000 }, dev: { readyTimeoutS: 120 } }),
      "src/layouts/Base.astro": layout,
      "src/layouts/Post.astro":
        '---\nimport Base from "./Base.astro";\nconst { frontmatter } = Astro.props;\n---\n<Base title={frontmatter.title}><slot /></Base>\n',
      "src/components/preact/Counter.jsx": `import { useState } from "preact/hooks";

export default function Counter() {
  const [count, setCount] = useState(0);
  return <button type="button" onClick={() => setCount(count + 1)}>Preact count {count}</button>;
}
`,
      "src/components/solid/Menu.jsx": `import { createSignal } from "solid-js";

export default function Menu() {
  const [open, setOpen] = createSignal(false);
  return <button type="button" onClick={() => setOpen(!open())}>Menu {open() ? "open" : "closed"}</button>;
}
`,
      "src/components/svelte/Toggle.svelte": `<script>
  let on = $state(false);
</script>
<button type="button" onclick={() => (on = !on)}>Svelte {on ? "on" : "off"}</button>
`,
      "src/pages/index.astro": `---
import Base from "../layouts/Base.astro";
import Counter from "../components/preact/Counter.jsx";
import Menu from "../components/solid/Menu.jsx";
import Toggle from "../components/svelte/Toggle.svelte";
---
<Base title="Home">
  <p id="hello">…</p>
  <Menu client:media="(max-width: 640px)" />
  <Counter client:idle />
  <div style="height: 2000px">A long page.</div>
  <Toggle client:visible />
  <script>
    const response = await fetch("/api/hello.json");
    document.getElementById("hello").textContent = (await response.json()).hello;
  </script>
</Base>
`,
      "src/pages/about.mdx": `---
layout: ../layouts/Post.astro
title: About
---
import Counter from "../components/preact/Counter.jsx";

A prerendered page written in MDX.

<Counter client:visible />
`,
      "src/pages/now.astro": `---
import Base from "../layouts/Base.astro";
import Toggle from "../components/svelte/Toggle.svelte";
export const prerender = false;
const day = new Date().toISOString().slice(0, 10);
---
<Base title="Now"><p>{day}</p><Toggle client:load /></Base>
`,
      "src/pages/api/hello.json.ts": 'export const prerender = false;\n\nexport const GET = () => Response.json({ hello: "world" });\n',
    },
  };
}

type Serve = "output" | "preview";

const SITES: [string, SiteSpec, Serve][] = [
  ["vercel", islandsSite("vercel", "11.0.11"), "output"],
  ["netlify", islandsSite("netlify", "8.2.6"), "output"],
  ["cloudflare", hybridSite("cloudflare", "14.3.3"), "preview"],
];

const installed: InstalledSite[] = [];
after(() => {
  for (const site of installed) site.remove();
});

const list = (findings: Finding[]) =>
  findings.map((f) => `${f.severity} ${f.tool} ${f.page ?? ""} ${f.file ?? ""}: ${f.message}`).join("\n");

async function validate(site: InstalledSite, file: string): Promise<{ report: ValidationReport; code: number | null; output: string }> {
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
    `# ${site.root.split("/").pop()} ${file}: ${report.verdict} in ${report.durationS} s; ${fails.map((f) => `${f.page ?? ""} ${f.file ?? ""} ${f.message}`).join(" | ")}`,
  );
  return { report, code: result.code, output: `${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}` };
}

const SERVED: Record<Serve, RegExp> = {
  output: /served offline by vigie as (Vercel|Netlify) serves it/,
  preview: /./,
};

for (const [adapter, spec, serve] of SITES) {
  describe(`a mostly static site on @astrojs/${adapter}`, { timeout: 1_200_000 }, () => {
    let site: InstalledSite;

    test(`clean: no FAIL; the pages are checked on ${serve === "output" ? "vigie's server of the build output, and the run says so" : "the adapter's own server"}`, async () => {
      const { tarball } = await packedVigie();
      site = await installSite(spec, tarball);
      installed.push(site);
      console.log(`# npm install (${spec.name}): ${site.installMs} ms`);
      const run = await validate(site, "report-clean.json");
      assert.notEqual(run.report.verdict, "FAIL", `${list(run.report.findings)}\n${run.output}`);
      assert.equal(run.report.site?.rendering?.adapter, `@astrojs/${adapter}`);
      assert.equal(run.report.site?.rendering?.serve, serve);
      const routes = Object.fromEntries((run.report.site?.rendering?.routes ?? []).map((route) => [route.route, route.renders]));
      assert.equal(routes["/now"], "on demand");
      assert.equal(routes["/about"], "prerendered");
      const crawl = run.report.steps.find((step) => step.name === "crawl");
      console.log(`# ${adapter} crawl: ${crawl?.summary}`);
      assert.doesNotMatch(crawl?.summary ?? "", /dev server/);
      if (serve === "output") assert.match(crawl?.summary ?? "", SERVED.output);
      for (const path of ["/", "/about/", "/now/"]) {
        assert.ok(
          run.report.pages.some((p) => p.path === path && p.status === 200 && p.ok),
          `${path}: ${JSON.stringify(run.report.pages)}`,
        );
      }
    });

    test("an on-demand page that throws: FAIL naming the page and its source line, no other page failing", async () => {
      const original = site.read("src/pages/now.astro");
      site.write("src/pages/now.astro", original.replace("const day =", `${THROWS}const day =`));
      try {
        const run = await validate(site, "report-throw.json");
        assert.equal(run.report.verdict, "FAIL", run.output);
        const fails = run.report.findings.filter((f) => f.severity === "fail");
        const finding = fails.find(
          (f) => f.page === "/now/" && /src\/pages\/now\.astro(:\d+)?/.test(f.file ?? "") && /the clock is broken/.test(f.message),
        );
        assert.ok(finding, list(run.report.findings));
        if (serve === "output") assert.match(finding.file ?? "", /src\/pages\/now\.astro:\d+/);
        assert.deepEqual(
          fails.filter((f) => f.page !== "/now/"),
          [],
          list(run.report.findings),
        );
      } finally {
        site.write("src/pages/now.astro", original);
      }
    });

    test("dev start in preview mode serves the last build, its on-demand pages included; dev stop ends it", async () => {
      // The last build is the one with the throwing page: /now/ answers 500 there, /about/ 200.
      const start = await site.vigie(["dev", "start", "--mode", "preview"], 240_000);
      let stopped = false;
      try {
        const started = JSON.parse(start.stdout) as { status?: string; mode?: string; url?: string; error?: string };
        console.log(`# ${adapter} preview: ${start.stdout.trim()}`);
        assert.equal(started.status, "started", `${start.stdout}\n${start.stderr.slice(-2000)}`);
        assert.equal(started.mode, "preview");
        const status = async (path: string) => {
          const got = await site.vigie(["http_get", "--path", path], 120_000);
          return (JSON.parse(got.stdout) as { status?: number }).status;
        };
        assert.equal(await status("/about/"), 200);
        assert.equal(await status("/now/"), 500);
        const stop = await site.vigie(["dev", "stop"], 60_000);
        assert.match(stop.stdout, /"stopped":true/, stop.stdout + stop.stderr);
        stopped = true;
      } finally {
        if (!stopped) await site.vigie(["dev", "stop"], 60_000);
      }
    });
  });
}
