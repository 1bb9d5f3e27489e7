// What a finding means for the site: benign notices, a dependency's markup, accepted findings.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { mergeReports, toText } from "../../../../src/core/validate/reports.ts";
import type { Finding, ValidationReport } from "../../../../src/core/validate/steps/findings.ts";
import {
  acceptanceOf,
  dependencyFix,
  isBenignNotice,
  originOf,
  STARLIGHT_MARKUP,
  setAccepted,
  themeNote,
  themeOriginOf,
} from "../../../../src/core/validate/steps/triage.ts";

const starlight = { starlight: true };
const plain = { starlight: false };

describe("triage", () => {
  test("Astro's and Starlight's known notices are benign; Starlight's only on a Starlight site", () => {
    const directive =
      '[MODULE_LEVEL_DIRECTIVE] The semantics of the module level directive "use astro:head-inject" in "src/content/docs/a.mdx?astroPropagatedAssets" may not be preserved when bundling.';
    assert.equal(isBenignNotice(directive, plain), true);
    assert.equal(isBenignNotice('[MODULE_LEVEL_DIRECTIVE] module level directive "use client" in "src/x.tsx"', plain), false);
    const i18n = 'The collection "i18n" does not exist or is empty. Please check your content config file for errors.';
    assert.equal(isBenignNotice(i18n, starlight), true);
    assert.equal(isBenignNotice(i18n, plain), false);
    assert.equal(isBenignNotice("Entry docs → 404 was not found.", starlight), true);
    assert.equal(isBenignNotice("Some chunks are larger than 500 kB after minification.", starlight), false);
  });

  test("a finding in Starlight's components says so; the site's own elements do not", () => {
    assert.equal(
      originOf({ rule: "label-content-name-mismatch", target: "button[data-open-modal]" }, ["site-search"], starlight),
      STARLIGHT_MARKUP,
    );
    assert.equal(originOf({ rule: "color-contrast", target: "starlight-theme-select > select" }, [], starlight), STARLIGHT_MARKUP);
    assert.equal(
      originOf({ rule: "hreflang-alternate", page: "/404.html", target: "link[rel=alternate]" }, [], starlight),
      STARLIGHT_MARKUP,
    );
    assert.equal(originOf({ rule: "image-alt", target: 'img[src="/x.png"]' }, [], starlight), undefined);
    assert.equal(originOf({ rule: "label-content-name-mismatch", target: "button" }, ["site-search"], plain), undefined);
  });

  test("a finding in one of Starlight's components names it, unless the site replaced that component", () => {
    const search = { rule: "label-content-name-mismatch", target: 'button[data-open-modal=""]' };
    const theme = themeOriginOf(search, ["site-search"], starlight);
    assert.deepEqual(theme, { origin: STARLIGHT_MARKUP, component: "Search" });
    assert.equal(themeNote(theme ?? { origin: "" }), "from Starlight's own markup (its Search component), which the site cannot change");
    assert.deepEqual(themeOriginOf({ rule: "color-contrast", target: "starlight-theme-select > select" }, [], starlight), {
      origin: STARLIGHT_MARKUP,
      component: "ThemeSelect",
    });
    assert.equal(
      themeNote({ origin: STARLIGHT_MARKUP, component: "404 page" }),
      "from Starlight's own markup (its 404 page), which the site cannot change",
    );
    assert.equal(themeOriginOf(search, ["site-search"], { starlight: true, starlightComponents: ["Search"] }), undefined);
    assert.deepEqual(themeOriginOf(search, ["site-search"], { starlight: true, starlightComponents: ["Header"] }), theme);
    assert.match(dependencyFix(search, STARLIGHT_MARKUP, "Search"), /replace its Search component through Starlight's `components` option/);
  });

  test("accept: by rule, by selector (tested in the page or by its parts), by page; accepted findings move apart", () => {
    const search: Finding = {
      severity: "fail",
      tool: "blog_browser_a11y",
      rule: "label-content-name-mismatch",
      page: "/",
      target: "button[data-open-modal]",
      matches: ["site-search button"],
      message: "m",
      fix: "f",
    };
    const alt: Finding = {
      severity: "fail",
      tool: "blog_browser_a11y",
      rule: "image-alt",
      page: "/a/",
      target: 'img[src="/x.png"]',
      message: "m",
      fix: "f",
    };
    const alternate: Finding = {
      severity: "warn",
      tool: "blog_build_links",
      rule: "hreflang-alternate",
      page: "/404.html",
      target: "link[rel=alternate][hreflang=fr]",
      message: "m",
      fix: "f",
    };
    const rules = [
      { rule: "label-content-name-mismatch", selector: "site-search button", reason: "Starlight's search button" },
      { rule: "hreflang-alternate", page: "/404.html", reason: "Starlight's 404 page is not indexed" },
    ];
    assert.equal(acceptanceOf(search, rules)?.reason, "Starlight's search button");
    assert.equal(acceptanceOf(alt, rules), undefined);
    assert.equal(acceptanceOf({ ...alternate, page: "/fr/" }, rules), undefined);
    assert.ok(acceptanceOf({ ...alt, matches: undefined }, [{ rule: "image-alt", selector: "img", reason: "r" }]));
    assert.ok(acceptanceOf(alternate, [{ rule: "hreflang-alternate", page: "/40*", reason: "r" }]));

    const findings = [search, alt, alternate];
    const accepted = setAccepted(findings, rules);
    assert.deepEqual(findings, [alt]);
    assert.deepEqual(
      accepted.map((finding) => [finding.rule, finding.reason, "matches" in finding]),
      [
        ["label-content-name-mismatch", "Starlight's search button", false],
        ["hreflang-alternate", "Starlight's 404 page is not indexed", false],
      ],
    );
  });

  test("the text report lists accepted findings apart with their reason; merging shards keeps them", () => {
    const report: ValidationReport = {
      verdict: "PASS",
      project: "/p",
      startedAt: "2026-12-02T00:00:00.000Z",
      durationS: 1,
      steps: [],
      findings: [],
      pages: [],
      perf: [],
      screenshots: [],
      accepted: [
        {
          severity: "fail",
          tool: "blog_browser_a11y",
          rule: "label-content-name-mismatch",
          page: "/",
          message: "m",
          fix: "f",
          reason: "Starlight's search",
        },
      ],
    };
    const text = toText(report);
    assert.match(text, /^PASS — no finding/);
    assert.match(
      text,
      /accepted in vigie\.config\.json \(1, not counted\):\n {2}\/ \[blog_browser_a11y\] label-content-name-mismatch: Starlight's search/,
    );
    const merged = mergeReports([report, { ...report, accepted: [] }]);
    assert.equal(merged.verdict, "PASS");
    assert.equal(merged.accepted?.length, 1);
  });
});
