// Mostly static sites with a few pages rendered on demand (`output: "static"`, `prerender =
// false` on them), made from npm: on Vercel and Netlify (no local server here: `npx vigie
// validate` checks the pages on the dev server and says so) and on Cloudflare (its own server,
// `astro preview` in workerd). Clean: no FAIL; an on-demand page that throws: a FAIL naming the
// page and its source. Netlify's dev server is the slowest to start offline: its site is
// validated once, with one on-demand page that throws beside the clean ones.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import type { Finding, ValidationReport } from "../packages/vigie/src/core/validate/findings.ts";
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

function hybridSite(adapter: "vercel" | "cloudflare" | "netlify", version: string, more: Record<string, string> = {}): SiteSpec {
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

const SITES: [string, SiteSpec, "dev" | "preview"][] = [
  ["vercel", hybridSite("vercel", "11.0.11"), "dev"],
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

for (const [adapter, spec, serve] of SITES) {
  describe(`a mostly static site on @astrojs/${adapter}`, { timeout: 1_200_000 }, () => {
    let site: InstalledSite;

    test(`clean: no FAIL; the pages are checked on ${serve === "dev" ? "the dev server, and the run says so" : "the adapter's own server"}`, async () => {
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
      const onDev = new RegExp(`adapter ${adapter} has no local server: pages checked on the dev server`);
      if (serve === "dev") assert.match(crawl?.summary ?? "", onDev);
      else assert.doesNotMatch(crawl?.summary ?? "", onDev);
      assert.ok(
        run.report.pages.some((p) => p.path === "/now/" && p.status === 200),
        JSON.stringify(run.report.pages),
      );
    });

    test("an on-demand page that throws: FAIL naming the page and its source", async () => {
      const original = site.read("src/pages/now.astro");
      site.write("src/pages/now.astro", original.replace("const day =", `${THROWS}const day =`));
      try {
        const run = await validate(site, "report-throw.json");
        assert.equal(run.report.verdict, "FAIL", run.output);
        const finding = run.report.findings.find(
          (f) =>
            f.severity === "fail" &&
            f.page === "/now/" &&
            /src\/pages\/now\.astro/.test(f.file ?? "") &&
            /the clock is broken/.test(f.message),
        );
        assert.ok(finding, list(run.report.findings));
      } finally {
        site.write("src/pages/now.astro", original);
      }
    });
  });
}

describe("a mostly static site on @astrojs/netlify", { timeout: 1_200_000 }, () => {
  test("one on-demand page that throws beside clean ones: FAIL naming it and its source, no other page failing; checked on the dev server, said so", async () => {
    const spec = hybridSite("netlify", "8.2.6", {
      "src/pages/later.astro": page("Later", `export const prerender = false;\n${THROWS}`, "<p>Later.</p>"),
    });
    const { tarball } = await packedVigie();
    const site = await installSite(spec, tarball);
    installed.push(site);
    console.log(`# npm install (${spec.name}): ${site.installMs} ms`);
    const run = await validate(site, "report.json");
    const { report } = run;
    assert.equal(report.site?.rendering?.adapter, "@astrojs/netlify");
    assert.equal(report.site?.rendering?.serve, "dev");
    const routes = Object.fromEntries((report.site?.rendering?.routes ?? []).map((route) => [route.route, route.renders]));
    assert.equal(routes["/now"], "on demand");
    assert.equal(routes["/later"], "on demand");
    assert.equal(routes["/about"], "prerendered");
    const crawl = report.steps.find((step) => step.name === "crawl");
    assert.match(crawl?.summary ?? "", /adapter netlify has no local server: pages checked on the dev server/);
    // The clean pages, prerendered and on demand: answered, and no FAIL finding.
    for (const path of ["/", "/about/", "/now/"]) {
      assert.ok(
        report.pages.some((p) => p.path === path && p.status === 200 && p.ok),
        `${path}: ${JSON.stringify(report.pages)}`,
      );
    }
    const fails = report.findings.filter((f) => f.severity === "fail");
    assert.deepEqual(
      fails.filter((f) => f.page !== "/later/"),
      [],
      `${list(report.findings)}\n${run.output}`,
    );
    // The page that throws.
    assert.equal(report.verdict, "FAIL", run.output);
    const finding = fails.find((f) => /src\/pages\/later\.astro/.test(f.file ?? "") && /the clock is broken/.test(f.message));
    assert.ok(finding, list(report.findings));
  });
});
