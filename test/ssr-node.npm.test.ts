// A server-rendered site on @astrojs/node, made from npm: prerendered pages (home, about, the
// posts of a content collection, 404), pages rendered on demand (/posts/, /now/, /greet/[name]/)
// and an endpoint the home fetches. `npx vigie validate` reads how it renders from Astro,
// crawls the build through the adapter's own server (astro preview) and gives no FAIL; then
// each fault alone, made on the same copy and undone, is a FAIL naming the page and its source.
// A page behind a login: a flow logs in and saves the state, which the other checks then use.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Finding, ValidationReport } from "../packages/vigie/src/core/validate/steps/findings.ts";
import { type InstalledSite, installSite, packedVigie } from "./support/site-install.ts";
import { SSR_NODE_SITE } from "./support/ssr-site.ts";

let site: InstalledSite;
before(async () => {
  const { tarball } = await packedVigie();
  site = await installSite(SSR_NODE_SITE, tarball);
  console.log(`# npm install (ssr-node): ${site.installMs} ms`);
  // A page for logged-in readers only (others are sent to /login/), and the login page.
  site.write(
    "src/pages/account.astro",
    `---
import Base from "../layouts/Base.astro";
if (Astro.cookies.get("session")?.value !== "ok") return Astro.redirect("/login/");
---
<Base title="Account"><h1>Welcome back</h1></Base>
`,
  );
  site.write(
    "src/pages/login.astro",
    `---
import Base from "../layouts/Base.astro";
---
<Base title="Log in">
  <h1>Log in</h1>
  <button type="button" id="login">Log in</button>
  <script>
    document.getElementById("login")?.addEventListener("click", () => {
      document.cookie = "session=ok; path=/";
    });
  </script>
</Base>
`,
  );
  const config = JSON.parse(site.read("vigie.config.json")) as Record<string, unknown>;
  const flows = [
    { name: "login", page: "/login/", steps: [{ click: "button Log in" }], saveState: ".opencode/state.json" },
    { name: "account", page: "/account/", steps: [{ waitFor: "heading Welcome back" }] },
  ];
  site.write("vigie.config.json", JSON.stringify({ ...config, flows, storageState: ".opencode/state.json" }));
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

/** A tool's answer through the CLI (`vigie <tool> ...`): its last line of output, parsed. */
async function toolAnswer(args: string[]): Promise<Record<string, unknown>> {
  const result = await site.vigie(args, 300_000);
  try {
    return JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "") as Record<string, unknown>;
  } catch {
    return assert.fail(`vigie ${args.join(" ")} gave no answer (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
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
    // The link tool on the same build agrees: the adapter's folder of prerendered pages, no false broken link.
    const links = await toolAnswer(["build_links"]);
    assert.equal(links.success, true, JSON.stringify(links));
    assert.deepEqual(links.broken, [], JSON.stringify(links));
    // The login flow saved the state; the account flow, opened with it, found the page of a logged-in reader.
    const flows = run.report.steps.find((step) => step.name === "flows");
    assert.match(
      flows?.summary ?? "",
      /login \(\/login\/\): 1\/1 steps, clean; account \(\/account\/\): 1\/1 steps, clean/,
      `${flows?.summary}`,
    );
  });

  test("a page behind a login: 200 with the saved state, sent to the login page without it (js_errors on the build)", async () => {
    const started = await site.vigie(["dev_start", "--mode", "preview"], 180_000);
    assert.equal(started.code, 0, started.stdout + started.stderr);
    try {
      const withState = JSON.parse((await site.vigie(["browser_js_errors", "--path", "/account/"], 120_000)).stdout) as Record<
        string,
        unknown
      >;
      assert.equal(withState.status, 200, JSON.stringify(withState));
      assert.equal(withState.redirectedTo, undefined, JSON.stringify(withState));
      assert.doesNotMatch(JSON.stringify(withState), /session=|"ok"/, "the state's content is never printed");
      const config = JSON.parse(site.read("vigie.config.json")) as Record<string, unknown>;
      site.write("vigie.config.json", JSON.stringify({ ...config, storageState: undefined }));
      try {
        const without = JSON.parse((await site.vigie(["browser_js_errors", "--path", "/account/"], 120_000)).stdout) as Record<
          string,
          unknown
        >;
        assert.equal(without.redirectedTo, "/login/", JSON.stringify(without));
      } finally {
        site.write("vigie.config.json", JSON.stringify(config));
      }
    } finally {
      await site.vigie(["dev_stop"], 60_000);
    }
  });

  test("an on-demand page that throws for one parameter: FAIL naming the page, the error and its source line", async () => {
    await withEdit(
      "src/pages/greet/[name].astro",
      (text) => text.replace('name === "zed"', 'name === "ann"'),
      async () => {
        const run = await validate("report-throw.json");
        const finding = assertFailOn(run, "/greet/ann/", /^src\/pages\/greet\/\[name\]\.astro:4$/, /500.*no greeting for zed/);
        assert.match(finding.message, /Error: no greeting for zed/);
        // The crawl tool on that build's preview names the same error and line.
        const started = await site.vigie(["dev_start", "--mode", "preview"], 180_000);
        assert.equal(started.code, 0, started.stdout + started.stderr);
        try {
          const crawl = await site.vigie(["browser_crawl"], 300_000);
          const answer = JSON.parse(crawl.stdout.trim().split("\n").at(-1) ?? "{}") as {
            failing?: { path: string; first: string; source?: string }[];
          };
          console.log(`# browser_crawl on the preview: ${JSON.stringify(answer.failing)}`);
          const failing = answer.failing?.find((page) => page.path === "/greet/ann/");
          assert.match(failing?.first ?? "", /^HTTP 500: Error: no greeting for zed/, crawl.stdout);
          assert.equal(failing?.source, "src/pages/greet/[name].astro:4", crawl.stdout);
        } finally {
          await site.vigie(["dev_stop"], 60_000);
        }
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

  test("the links and crawl tools give the findings validate gives, on the same build", async () => {
    const about = "src/pages/about.astro";
    const original = site.read(about);
    site.write(about, original.replace("<h1>About</h1>", '<link rel="stylesheet" href="/styles/gone.css" />\n  <h1>About</h1>'));
    try {
      await withEdit(
        "src/pages/now.astro",
        (text) => text.replace("<p>Today", '<p><a href="/then/">Then</a></p>\n  <p>Today'),
        async () => {
          const run = await validate("report-parity.json");
          const fails = (tool: string) =>
            run.report.findings.filter((f) => f.severity === "fail" && f.tool === tool).map((f) => `${f.page} ${f.file ?? ""}`);
          // The link check: the stylesheet of the prerendered page, in the adapter's folder.
          const links = await toolAnswer(["build_links"]);
          const broken = (links.broken as { from: string; source?: string }[]).map((link) => `${link.from} ${link.source ?? ""}`);
          assert.deepEqual(broken.sort(), fails("blog_build_links").sort(), JSON.stringify(links));
          assert.ok(
            broken.some((line) => line.startsWith("/about/ src/pages/about.astro")),
            JSON.stringify(links),
          );
          // The crawl: the same pages fail, each named where validate names it.
          const started = await site.vigie(["dev_start", "--mode", "preview"], 180_000);
          assert.equal(started.code, 0, started.stdout + started.stderr);
          try {
            const crawl = await toolAnswer(["browser_crawl"]);
            const failing = crawl.failing as { path: string; source?: string; first: string }[];
            console.log(`# browser_crawl on the preview: ${JSON.stringify(failing)}`);
            const crawlPages = [...new Set(fails("blog_browser_crawl").map((line) => line.split(" ")[0]))].sort();
            assert.deepEqual(failing.map((page) => page.path).sort(), crawlPages, `${JSON.stringify(crawl)}\n${list(run.report.findings)}`);
            const now = failing.find((page) => page.path === "/now/");
            assert.match(now?.first ?? "", /broken link to \/then\//, JSON.stringify(crawl));
            assert.equal(now?.source, "src/pages/now.astro:7", JSON.stringify(crawl));
          } finally {
            await site.vigie(["dev_stop"], 60_000);
          }
        },
      );
    } finally {
      site.write(about, original);
    }
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
