// A checkout with no `.astro/` yet (Astro's data store, written by the dev server and by the
// build alike): `npx vigie validate` on ten fresh copies of a site with a content collection
// starts the dev server every time. The browser checks are off (no Chromium is needed then):
// what is looked at is the dev server and the build, started by one run.
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { ValidationReport } from "../packages/vigie/src/core/validate/findings.ts";
import { type InstalledSite, installSite, packedVigie, run } from "./support/site-install.ts";
import { SSR_NODE_SITE } from "./support/ssr-site.ts";

const COPIES = 10;
const CONFIG = { checks: { lint: false, check: false, links: false, crawl: false, perf: false } };

let site: InstalledSite;
const copies: string[] = [];
before(async () => {
  const { tarball } = await packedVigie();
  site = await installSite({ ...SSR_NODE_SITE, name: "fresh-checkout" }, tarball);
});
after(() => {
  for (const copy of copies) rmSync(copy, { recursive: true, force: true });
  site?.remove();
});

test(`validate on ${COPIES} fresh copies without .astro/: the dev server starts every time`, { timeout: 1_800_000 }, async () => {
  const outcomes: string[] = [];
  for (let index = 0; index < COPIES; index++) {
    const copy = mkdtempSync(join(tmpdir(), "vigie-fresh-"));
    copies.push(copy);
    // The installed site as a user's fresh clone would be: its files and packages, nothing Astro wrote.
    cpSync(site.root, copy, { recursive: true, filter: (path) => !/\/(\.astro|dist|\.opencode)(\/|$)/.test(path.slice(site.root.length)) });
    assert.ok(!existsSync(join(copy, ".astro")));
    writeFileSync(join(copy, "vigie.config.json"), JSON.stringify(CONFIG));
    const result = await run("npx", ["--no-install", "vigie", "validate", "--json", "report.json"], { cwd: copy, timeoutMs: 300_000 });
    const report = JSON.parse(readText(join(copy, "report.json"), result.stderr)) as ValidationReport;
    const dev = report.steps.find((step) => step.name === "dev server");
    const build = report.steps.find((step) => step.name === "build");
    outcomes.push(`${index + 1}: dev ${dev?.status} (${dev?.summary}), build ${build?.status}, ${report.verdict} in ${report.durationS} s`);
    rmSync(copy, { recursive: true, force: true });
  }
  console.log(`# ${outcomes.join("\n# ")}`);
  assert.equal(outcomes.filter((line) => / dev ok /.test(line) && / build (ok|warn),/.test(line)).length, COPIES, outcomes.join("\n"));
});

function readText(path: string, stderr: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    assert.fail(`no report at ${path}:\n${stderr.slice(-2000)}`);
  }
}
