// vigie from the tarball of `npm pack` on two sites a new user could have, made from npm
// packages only: a Starlight documentation site in two languages (a dozen pages, a Mermaid
// diagram drawn by a client script) and a copy of this blog. For each: `npx vigie init`,
// `npx vigie validate` PASS (WARN for the Starlight theme's own markup, with no accept written), one injected fault a FAIL naming the page and the tool,
// `npx vigie mcp` listed by the MCP SDK's client and `opencode serve` listing the tools.
// Slow (two npm installs, four validations): about 10 minutes on 2 cores. The figures
// (install, init and validate times, sizes) are printed, and appended to the file named by
// VIGIE_FIGURES_FILE when it is set.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ValidationReport } from "../packages/vigie/src/core/validate/steps/findings.ts";
import { STARLIGHT_MARKUP } from "../packages/vigie/src/core/validate/steps/triage.ts";
import {
  assertFailNaming,
  assertMcpLists,
  assertOpenCodeLists,
  assertPass,
  assertPassOrWarn,
  diskKb,
  figure,
  initSite,
  seconds,
  validateSite,
} from "./support/package-checks.ts";
import {
  blogCopySpec,
  endAll,
  type InstalledSite,
  installSite,
  packedVigie,
  type SiteSpec,
  STARLIGHT_SITE,
} from "./support/site-install.ts";

interface Fault {
  /** What the fault is, for the test's name. */
  name: string;
  /** The site's file that gets it, and how. */
  file: string;
  inject(text: string): string;
  /** The tools that may report it, the page it must name, and what else the finding must say. */
  tools: string[];
  page: RegExp;
  what: RegExp;
}

/** A finding of the site's theme that its user accepts in vigie.config.json, as the finding's own hint says. */
interface Accept {
  rule: string;
  selector?: string;
  page?: string;
  reason: string;
}

/** What else the clean run's report must show for this site. */
type CleanCheck = (report: ValidationReport) => void;

function describeSite(
  label: string,
  spec: () => SiteSpec,
  fault: Fault,
  accept: Accept[] = [],
  clean?: CleanCheck,
  flows: object[] = [],
  /** The clean run may end in WARN (findings the site cannot change), never in FAIL. */
  warnAllowed = false,
): void {
  describe(`the vigie package on ${label}`, { timeout: 1_500_000 }, () => {
    let site: InstalledSite | undefined;
    let initMs = 0;

    before(async () => {
      const packed = await packedVigie();
      figure(`tarball: ${(packed.bytes / 1024).toFixed(0)} kB${packed.cached ? " (packed earlier)" : ` packed in ${seconds(packed.ms)}`}`);
      site = await installSite(spec(), packed.tarball, 900_000);
      const [vigieKb, allKb] = [await diskKb(site.root, "node_modules/vigie"), await diskKb(site.root, "node_modules")];
      figure(
        `${label}: npm install ${seconds(site.installMs)}; node_modules/vigie ${(vigieKb / 1024).toFixed(1)} MB, node_modules ${(allKb / 1024).toFixed(0)} MB`,
      );
    });

    after(() => {
      endAll();
      site?.remove();
    });

    test("npx vigie init writes the harness", async () => {
      assert.ok(site);
      initMs = (await initSite(site)).ms;
      // The page-load budget of a quiet machine (200 ms) is not what two busy cores give: the
      // user's own budget, as a user on a slow machine would set it; and what the user accepts.
      const config = JSON.parse(site.read("vigie.config.json")) as Record<string, unknown>;
      const edited = { ...config, budgets: { loadMs: 5000 }, ...(accept.length ? { accept } : {}), ...(flows.length ? { flows } : {}) };
      site.write("vigie.config.json", `${JSON.stringify(edited, null, 2)}\n`);
    });

    test(`npx vigie validate: ${warnAllowed ? "PASS or WARN (no FAIL)" : "PASS"} on the site as it is`, async () => {
      assert.ok(site);
      const validated = await validateSite(site, "report-clean.json");
      figure(`${label}: init ${seconds(initMs)} + validate ${seconds(validated.result.ms)} (${validated.report.verdict})`);
      if (warnAllowed) assertPassOrWarn(validated);
      else assertPass(validated);
      clean?.(validated.report as unknown as ValidationReport);
    });

    test(`npx vigie validate: ${fault.name} is a FAIL naming the page and the tool`, async () => {
      assert.ok(site);
      const original = site.read(fault.file);
      site.write(fault.file, fault.inject(original));
      try {
        const validated = await validateSite(site, "report-fault.json");
        const finding = assertFailNaming(validated, fault);
        console.log(`${label}: ${finding.tool} on ${finding.page ?? finding.file}: ${finding.message.slice(0, 200)}`);
      } finally {
        site.write(fault.file, original);
      }
    });

    test("npx vigie mcp lists the sixteen tools to the MCP SDK's client", async () => {
      assert.ok(site);
      await assertMcpLists(site.root);
    });

    test("opencode serve in the site lists the tools of the files init wrote", async () => {
      assert.ok(site);
      await assertOpenCodeLists(site.root);
    });
  });
}

// Starlight's own markup (axe's label-content-name-mismatch on its Search component's button,
// its 404 page's hreflang alternate to a French 404 that Starlight does not generate) is the
// theme's, which the site cannot change: the first validate, with no accept written, is PASS or
// WARN, each such finding a WARN naming Starlight.
describeSite(
  "a Starlight site",
  () => STARLIGHT_SITE,
  {
    name: "a script that throws on one page",
    file: "src/content/docs/guides/deploy.md",
    inject: (text) => `${text}\n<script>throw new Error("the deploy page script failed")</script>\n`,
    tools: ["blog_browser_crawl", "blog_browser_js_errors"],
    page: /\/guides\/deploy\//,
    what: /the deploy page script failed/,
  },
  [],
  (report) => {
    // Read as Starlight, its markup's findings WARNs naming it, Astro's notices not findings.
    assert.equal(report.site?.starlight, true);
    assert.deepEqual(report.site?.criticalRoutes, ["/", "/fr/"]);
    assert.ok(!report.findings.some((f) => /head-inject|collection "i18n"/.test(f.message)));
    assert.deepEqual(report.accepted ?? [], []);
    const search = report.findings.find((f) => f.rule === "label-content-name-mismatch");
    if (search) {
      assert.equal(search.severity, "warn");
      assert.equal(search.origin, STARLIGHT_MARKUP);
      assert.match(search.message, /from Starlight's own markup \(its Search component\), which the site cannot change/);
    }
    assert.ok(report.pages.some((page) => page.path === "/guides/architecture/" && page.ok));
    // The flow ran on the build, clean: Pagefind's search opened, typed in, Enter pressed.
    const flows = report.steps.find((step) => step.name === "flows");
    assert.match(flows?.summary ?? "", /^search \(\/\): 3\/3 steps, clean$/, JSON.stringify(flows));
  },
  [
    {
      name: "search",
      page: "/",
      steps: [{ click: "button Search" }, { fill: "textbox Search", value: "deploy" }, { press: "Enter" }],
    },
  ],
  true,
);

describeSite("a copy of this blog", blogCopySpec, {
  name: "an image without alt text",
  file: "src/content/articles/en/performance-budgets.mdx",
  inject: (text) => `${text}\n<img src="/favicon.svg" width="32" height="32" />\n`,
  tools: ["blog_browser_a11y"],
  page: /performance-budgets/,
  what: /image-alt/,
});
