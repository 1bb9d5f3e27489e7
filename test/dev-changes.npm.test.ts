// `npx vigie dev changes` from the tarball of `npm pack`, on a site with React and Preact islands
// made from npm packages (the islands site's packages and pinned lock), on the dev server
// `npx vigie dev start` runs: the first call takes the baseline; a React island used by one page
// made to throw on mount reaches that page alone, whose new fault names the island's file:line,
// and the answer says how the edit applied; undone, the fault is resolved; a Preact island used
// by two pages reaches exactly those two. Each answer fits in 2 KB; answers and times are printed.
// Then `npx vigie validate --changed` with that dev server running: no build, the two pages the
// badge reaches loaded on it, the fault at its file:line; PASS once undone.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { resolveProject } from "../packages/vigie/src/core/project.ts";
import { killEverythingIn } from "../packages/vigie/test/core/devServer/helpers.ts";
import { figure, seconds } from "./support/package-checks.ts";
import { endAll, type InstalledSite, ISLANDS_DEPENDENCIES, installSite, packedVigie, type SiteSpec } from "./support/site-install.ts";

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
    <nav><a href="/">Home</a> <a href="/about/">About</a> <a href="/news/">News</a></nav>
    <main><h1>{title}</h1><slot /></main>
  </body>
</html>
`;

const page = (title: string, imports: string, body: string) => `---
import Base from "../layouts/Base.astro";
${imports}
---
<Base title=${JSON.stringify(title)}>
${body}
</Base>
`;

const COUNTER = "src/components/react/Counter.tsx";
const BADGE = "src/components/preact/Badge.tsx";

const COUNTER_TEXT = `import { useState } from "react";

export default function Counter() {
  const [count, setCount] = useState(0);
  return <button type="button" onClick={() => setCount(count + 1)}>React count {count}</button>;
}
`;

/** The counter made to throw once mounted: the throw is on line 6. */
const COUNTER_THROWS = `import { useEffect, useState } from "react";

export default function Counter() {
  const [count, setCount] = useState(0);
  useEffect(() => {
    throw new Error("counter island failed on purpose");
  }, []);
  return <button type="button" onClick={() => setCount(count + 1)}>React count {count}</button>;
}
`;

const BADGE_TEXT = `/** @jsxImportSource preact */
import { useState } from "preact/hooks";

export default function Badge() {
  const [seen, setSeen] = useState(false);
  return <button type="button" onClick={() => setSeen(true)}>Preact {seen ? "seen" : "new"}</button>;
}
`;

/** The badge made to throw once mounted: the throw is on line 7. */
const BADGE_THROWS = `/** @jsxImportSource preact */
import { useEffect, useState } from "preact/hooks";

export default function Badge() {
  const [seen, setSeen] = useState(false);
  useEffect(() => {
    throw new Error("badge island failed on purpose");
  }, []);
  return <button type="button" onClick={() => setSeen(true)}>Preact {seen ? "seen" : "new"}</button>;
}
`;

/** The islands site's packages (its pinned lock), with these files: the counter on one page, the badge on two. */
const SPEC: SiteSpec = {
  name: "islands",
  files: {
    "astro.config.mjs": `import preact from "@astrojs/preact";
import react from "@astrojs/react";
import { defineConfig } from "astro/config";

export default defineConfig({
  integrations: [preact({ include: ["**/preact/*"] }), react({ include: ["**/react/*"] })],
});
`,
    "tsconfig.json": '{ "extends": "astro/tsconfigs/strict", "compilerOptions": { "jsx": "react-jsx", "jsxImportSource": "react" } }\n',
    // A page-load budget for a busy machine.
    "vigie.config.json": `${JSON.stringify({ budgets: { loadMs: 5000 } })}\n`,
    "src/layouts/Base.astro": layout,
    [COUNTER]: COUNTER_TEXT,
    [BADGE]: BADGE_TEXT,
    "src/pages/index.astro": page("Islands", 'import Counter from "../components/react/Counter.tsx";', "<Counter client:load />"),
    "src/pages/about.astro": page("About", 'import Badge from "../components/preact/Badge.tsx";', "<p>About.</p>\n<Badge client:load />"),
    "src/pages/news.astro": page("News", 'import Badge from "../components/preact/Badge.tsx";', "<p>News.</p>\n<Badge client:load />"),
  },
  dependencies: ISLANDS_DEPENDENCIES,
};

interface PageDelta {
  path: string;
  new?: unknown[];
  resolved?: unknown[];
  still?: number;
}

interface ChangesAnswer {
  error?: string;
  baseline?: { pages: number; faults: number; ms: number };
  changed?: string[];
  applied?: string;
  reached?: number;
  pages?: PageDelta[];
  clean?: string[];
  pending?: string[];
  ms?: number;
}

const pathsOf = (answer: ChangesAnswer) =>
  [...(answer.pages ?? []).map((entry) => entry.path), ...(answer.clean ?? []), ...(answer.pending ?? [])].sort();
const pageOf = (answer: ChangesAnswer, path: string) => answer.pages?.find((entry) => entry.path === path);

describe("vigie dev changes from npm, on a site with React and Preact islands", { timeout: 1_200_000 }, () => {
  let site: InstalledSite | undefined;
  let started = false;

  /** `npx vigie dev changes`: its JSON answer, asserted to be no error and at most 2 KB, printed with its time. */
  const changes = async (what: string): Promise<ChangesAnswer> => {
    assert.ok(site);
    const result = await site.vigie(["dev", "changes"], 300_000);
    const text = result.stdout.trim();
    assert.equal(result.code, 0, `${text}\n${result.stderr.slice(-2000)}`);
    const answer = JSON.parse(text) as ChangesAnswer;
    assert.equal(answer.error, undefined, text);
    const bytes = Buffer.byteLength(text);
    figure(`dev changes, ${what} (${seconds(result.ms)}, ${bytes} B): ${text}`);
    assert.ok(bytes <= 2048, `${bytes} bytes: ${text}`);
    return answer;
  };

  before(async () => {
    const packed = await packedVigie();
    site = await installSite(SPEC, packed.tarball, 900_000);
    figure(`dev changes site: npm install ${seconds(site.installMs)}`);
    started = true;
    const start = await site.vigie(["dev", "start"], 240_000);
    assert.equal(start.code, 0, start.stdout + start.stderr);
    figure(`dev changes site: dev start ${seconds(start.ms)}`);
    // Vite optimises the islands' dependencies when a browser first asks for them: done before the baseline.
    for (const path of ["/", "/about/"]) {
      const seen = await site.vigie(["browser_js_errors", "--path", path], 180_000);
      figure(`dev changes site: first view of ${path} ${seconds(seen.ms)}`);
    }
  });

  after(async () => {
    try {
      if (site && started) await site.vigie(["dev", "stop"], 60_000);
    } finally {
      if (site) killEverythingIn(resolveProject(site.root));
      endAll();
      site?.remove();
    }
  });

  test("the first call takes the baseline: every page, no fault", async () => {
    const first = await changes("baseline");
    assert.equal(first.baseline?.pages, 3, JSON.stringify(first));
    assert.equal(first.baseline?.faults, 0, JSON.stringify(first));
  });

  test("a React island made to throw on mount: its page alone, the new fault at the island's file:line, then resolved", async () => {
    assert.ok(site);
    site.write(COUNTER, COUNTER_THROWS);
    let broken: ChangesAnswer;
    try {
      broken = await changes("the counter throws");
    } finally {
      site.write(COUNTER, COUNTER_TEXT);
    }
    const shown = JSON.stringify(broken);
    assert.deepEqual(broken.changed, [COUNTER], shown);
    assert.deepEqual(pathsOf(broken), ["/"], shown);
    assert.match(broken.applied ?? "", /^(hmr|full-reload)$/, shown);
    const faults = JSON.stringify(pageOf(broken, "/")?.new);
    assert.match(faults, /counter island failed on purpose/, shown);
    assert.match(faults, /src\/components\/react\/Counter\.tsx:6\b/, shown);
    const fixed = await changes("the counter undone");
    const fixedShown = JSON.stringify(fixed);
    assert.deepEqual(fixed.changed, [COUNTER], fixedShown);
    assert.deepEqual(pathsOf(fixed), ["/"], fixedShown);
    assert.match(JSON.stringify(pageOf(fixed, "/")?.resolved), /counter island failed on purpose/, fixedShown);
    assert.equal(pageOf(fixed, "/")?.new, undefined, fixedShown);
  });

  test("a Preact island two pages use: exactly those two pages, the fault at its file:line on each, then resolved", async () => {
    assert.ok(site);
    site.write(BADGE, BADGE_THROWS);
    let broken: ChangesAnswer;
    try {
      broken = await changes("the badge throws");
    } finally {
      site.write(BADGE, BADGE_TEXT);
    }
    const shown = JSON.stringify(broken);
    assert.deepEqual(broken.changed, [BADGE], shown);
    assert.deepEqual(pathsOf(broken), ["/about/", "/news/"], shown);
    assert.match(broken.applied ?? "", /^(hmr|full-reload)$/, shown);
    for (const path of ["/about/", "/news/"]) {
      const faults = JSON.stringify(pageOf(broken, path)?.new);
      assert.match(faults, /badge island failed on purpose/, shown);
      assert.match(faults, /src\/components\/preact\/Badge\.tsx:7\b/, shown);
    }
    const fixed = await changes("the badge undone");
    const fixedShown = JSON.stringify(fixed);
    assert.deepEqual(pathsOf(fixed), ["/about/", "/news/"], fixedShown);
    for (const path of ["/about/", "/news/"]) {
      assert.match(JSON.stringify(pageOf(fixed, path)?.resolved), /badge island failed on purpose/, fixedShown);
      assert.equal(pageOf(fixed, path)?.new, undefined, fixedShown);
    }
  });

  test("validate --changed with the dev server running: no build, the badge's two pages, the fault at its file:line", async () => {
    assert.ok(site);
    const root = site.root;
    const git = (...args: string[]) => execFileSync("git", args, { cwd: root, stdio: "ignore" });
    site.write(".gitignore", "node_modules/\ndist/\n.astro/\n.opencode/\nreport.json\n");
    git("init", "-q");
    git("add", ".");
    git("-c", "user.name=vigie", "-c", "user.email=vigie@localhost", "commit", "-q", "-m", "the site");
    const validate = async (what: string) => {
      const result = await site?.vigie(["validate", "--changed", "--json", "report.json"], 300_000);
      assert.ok(result);
      const report = JSON.parse(readFileSync(join(root, "report.json"), "utf8")) as {
        verdict: string;
        steps: { name: string; status: string; summary: string }[];
        pages: { path: string }[];
        findings: { rule?: string; page?: string; file?: string; message: string }[];
      };
      figure(
        `validate --changed, ${what} (${seconds(result.ms)}): ${report.verdict}; ${report.steps.map((step) => `${step.name} ${step.status}`).join(", ")}`,
      );
      return { result, report };
    };
    site.write(BADGE, BADGE_THROWS);
    try {
      const { result, report } = await validate("the badge throws");
      const shown = JSON.stringify(report);
      assert.equal(result.code, 1, shown);
      assert.equal(report.verdict, "FAIL", shown);
      assert.equal(report.steps.find((step) => step.name === "build")?.status, "skipped", shown);
      assert.deepEqual(report.pages.map((entry) => entry.path).sort(), ["/about/", "/news/"], shown);
      for (const path of ["/about/", "/news/"]) {
        const finding = report.findings.find((entry) => entry.page === path);
        assert.match(finding?.message ?? "", /badge island failed on purpose/, shown);
        assert.match(finding?.file ?? "", /^src\/components\/preact\/Badge\.tsx:7$/, shown);
      }
    } finally {
      site.write(BADGE, BADGE_TEXT);
    }
    const { result, report } = await validate("the badge undone");
    assert.equal(report.verdict, "PASS", JSON.stringify(report));
    assert.equal(result.code, 0);
  });
});
