// The dev server never cries wolf: a site made from npm as users write it (the Vercel adapter,
// Preact and Svelte islands, `<ClientRouter />`, an npm dependency imported by a page's client
// script, no `optimizeDeps` hint, no `prefetch` setting), checked on a COLD dev server (no
// node_modules/.vite: Vite discovers dependencies late, re-optimises and answers
// `504 Outdated Optimize Dep`, the dev toolbar's modules among them). Through the packed vigie:
// js_errors on each page of the clean site finds nothing (a page that met a re-optimisation
// says it was reloaded), `vigie validate` has no FAIL finding; an island that throws is a FAIL
// naming its page and file:line, in js_errors and in validate. The figures are printed.
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Finding, ValidationReport } from "../packages/vigie/src/core/validate/steps/findings.ts";
import { figure, seconds } from "./support/package-checks.ts";
import { endAll, type InstalledSite, installSite, packedVigie, type SiteSpec } from "./support/site-install.ts";

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

const page = (title: string, frontmatter: string, body: string) => `---
import Base from "../layouts/Base.astro";
${frontmatter}
---
<Base title=${JSON.stringify(title)}>
${body}
</Base>
`;

const SPEC: SiteSpec = {
  name: "dev-server",
  dependencies: {
    "@astrojs/vercel": "11.0.11",
    "@astrojs/preact": "6.0.5",
    "@astrojs/svelte": "9.0.1",
    preact: "10.29.8",
    svelte: "5.57.3",
    dayjs: "1.11.23",
  },
  files: {
    "astro.config.mjs": `import preact from "@astrojs/preact";
import svelte from "@astrojs/svelte";
import vercel from "@astrojs/vercel";
import { defineConfig } from "astro/config";

export default defineConfig({ adapter: vercel(), integrations: [preact(), svelte()] });
`,
    "tsconfig.json": '{ "extends": "astro/tsconfigs/strict", "compilerOptions": { "jsx": "react-jsx", "jsxImportSource": "preact" } }\n',
    // The user's own settings: no type check (no @astrojs/check), a page-load budget for a busy machine.
    "vigie.config.json": `${JSON.stringify({ checks: { check: false }, budgets: { loadMs: 5000 }, dev: { readyTimeoutS: 120 } })}\n`,
    "src/layouts/Base.astro": layout,
    "src/components/Counter.tsx": `import { useState } from "preact/hooks";

export default function Counter() {
  const [count, setCount] = useState(0);
  return <button type="button" onClick={() => setCount(count + 1)}>Count {count}</button>;
}
`,
    "src/components/Toggle.svelte": `<script>
  let on = $state(false);
</script>
<button type="button" onclick={() => (on = !on)}>Toggle {on ? "on" : "off"}</button>
`,
    "src/pages/index.astro": page(
      "Home",
      'import Counter from "../components/Counter.tsx";\nimport Toggle from "../components/Toggle.svelte";',
      '<Counter client:load />\n<div style="height: 1500px">A long page.</div>\n<Toggle client:visible />',
    ),
    "src/pages/about.astro": page(
      "About",
      "",
      `<p>Today is <span id="today">…</span>.</p>
<script>
  import dayjs from "dayjs";
  document.getElementById("today").textContent = dayjs().format("YYYY-MM-DD");
</script>`,
    ),
    "src/pages/now.astro": page(
      "Now",
      "export const prerender = false;\nconst day = new Date().toISOString().slice(0, 10);",
      "<p>{day}</p>",
    ),
  },
};

/** A Preact island that throws once mounted, on a page of its own. */
const FAULT = {
  page: "/broken/",
  files: {
    "src/components/Broken.tsx": `import { useEffect } from "preact/hooks";

export default function Broken() {
  useEffect(() => {
    throw new Error("the preact island failed on purpose");
  }, []);
  return <p>Broken</p>;
}
`,
    "src/pages/broken.astro": page("Broken", 'import Broken from "../components/Broken.tsx";', "<Broken client:load />"),
    // Linked from every page, as a new page is.
    "src/layouts/Base.astro": layout.replace('<a href="/now/">Now</a>', '<a href="/now/">Now</a> <a href="/broken/">Broken</a>'),
  },
  what: /the preact island failed on purpose/,
  file: /src\/components\/Broken\.tsx:\d+/,
};

const PAGES = ["/", "/about/", "/now/"];

const list = (findings: Finding[]) =>
  findings.map((f) => `${f.severity} ${f.tool} ${f.page ?? ""} ${f.file ?? ""}: ${f.message}`).join("\n");

describe("the packed vigie on a cold dev server (Vercel, Preact and Svelte islands, <ClientRouter />)", { timeout: 1_800_000 }, () => {
  let site: InstalledSite | undefined;

  /** The site as a fresh checkout has it: no Vite dependency cache, no .astro/. */
  const cold = () => {
    assert.ok(site);
    rmSync(join(site.root, "node_modules", ".vite"), { recursive: true, force: true });
    rmSync(join(site.root, ".astro"), { recursive: true, force: true });
  };

  const validate = async (file: string) => {
    assert.ok(site);
    const result = await site.vigie(["validate", "--json", file], 900_000);
    let report: ValidationReport;
    try {
      report = JSON.parse(site.read(file)) as ValidationReport;
    } catch {
      assert.fail(
        `validate wrote no report (exit ${result.code ?? result.signal}):\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`,
      );
    }
    const crawl = report.steps.find((step) => step.name === "crawl");
    figure(`dev-server site: validate ${file} ${seconds(result.ms)}: ${report.verdict}; crawl: ${crawl?.summary ?? "-"}`);
    return { result, report };
  };

  /** js_errors through the CLI on each path, on the dev server vigie starts (stopped afterwards). */
  const jsErrors = async (paths: string[]) => {
    assert.ok(site);
    const started = await site.vigie(["dev_start"], 240_000);
    assert.equal(started.code, 0, started.stdout + started.stderr);
    try {
      const answers: Record<string, Record<string, unknown>> = {};
      for (const path of paths) {
        const result = await site.vigie(["browser_js_errors", "--path", path], 180_000);
        answers[path] = JSON.parse(result.stdout) as Record<string, unknown>;
        figure(`dev-server site: js_errors ${path} (${seconds(result.ms)}): ${result.stdout.trim().slice(0, 700)}`);
      }
      return answers;
    } finally {
      await site.vigie(["dev_stop"], 60_000);
    }
  };

  before(async () => {
    const packed = await packedVigie();
    site = await installSite(SPEC, packed.tarball, 900_000);
    figure(`dev-server site: npm install ${seconds(site.installMs)}`);
  });

  after(() => {
    endAll();
    site?.remove();
  });

  test("clean, cold: js_errors finds nothing on any page; a page that met a re-optimisation says it was reloaded", async () => {
    cold();
    const answers = await jsErrors(PAGES);
    for (const [path, answer] of Object.entries(answers)) {
      const shown = JSON.stringify(answer);
      assert.deepEqual(answer.errors ?? [], [], `${path}: ${shown}`);
      assert.deepEqual(answer.failedRequests ?? [], [], `${path}: ${shown}`);
      assert.equal(answer.islandFaults, undefined, `${path}: ${shown}`);
      assert.equal(answer.summary, "clean: no error, no failed request", `${path}: ${shown}`);
      if (answer.reloaded !== undefined) assert.equal(answer.reloaded, "dev server re-optimised dependencies");
    }
  });

  test("clean, cold: vigie validate has no FAIL finding", async () => {
    cold();
    const { result, report } = await validate("clean.json");
    const fails = report.findings.filter((f) => f.severity === "fail");
    assert.deepEqual(list(fails), "", `${list(report.findings)}\n${result.stdout.slice(-2000)}`);
    assert.notEqual(report.verdict, "FAIL");
    assert.equal(result.code, 0, result.stdout.slice(-2000));
  });

  test("an island that throws, cold: a FAIL naming its page and file:line, in js_errors and in validate", async () => {
    assert.ok(site);
    for (const [path, text] of Object.entries(FAULT.files)) site.write(path, text);
    cold();
    const answers = await jsErrors([FAULT.page, "/"]);
    const broken = JSON.stringify(answers[FAULT.page]);
    assert.match(broken, FAULT.what);
    assert.match(broken, FAULT.file);
    assert.equal(answers["/"]?.summary, "clean: no error, no failed request", JSON.stringify(answers["/"]));
    cold();
    const { report } = await validate("fault.json");
    const fails = report.findings.filter((f) => f.severity === "fail");
    assert.equal(report.verdict, "FAIL", list(report.findings));
    const finding = fails.find((f) => f.page === FAULT.page && FAULT.what.test(f.message));
    assert.ok(finding, list(report.findings));
    assert.match(`${finding.file ?? ""} ${finding.message}`, FAULT.file, list(fails));
    figure(`dev-server site, the island that throws: ${finding.page}: ${finding.message} [file ${finding.file}]`);
    // Every other failing finding is that page's.
    assert.deepEqual(
      fails.filter((f) => f.page !== FAULT.page),
      [],
      list(fails),
    );
  });
});
