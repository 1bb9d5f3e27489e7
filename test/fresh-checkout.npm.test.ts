// A checkout with no `.astro/` yet (Astro's data store, written by the dev server and by the
// build alike): `npx vigie validate` ten times on a site with a content collection, each time
// without .astro/, the build or vigie's state, starts the dev server every time. The browser checks are off (no Chromium is needed then):
// what is looked at is the dev server and the build, started by one run.
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { ValidationReport } from "../packages/vigie/src/core/validate/steps/findings.ts";
import { type InstalledSite, installSite, packedVigie, run } from "./support/site-install.ts";
import { SSR_NODE_SITE } from "./support/ssr-site.ts";

const COPIES = 10;
const CONFIG = { checks: { lint: false, check: false, links: false, crawl: false, perf: false } };

let site: InstalledSite;
before(async () => {
  const { tarball } = await packedVigie();
  site = await installSite(SSR_NODE_SITE, tarball);
  site.write("vigie.config.json", JSON.stringify(CONFIG));
});
after(() => site?.remove());

test(`validate ${COPIES} times without .astro/: the dev server starts every time`, { timeout: 1_800_000 }, async () => {
  const outcomes: string[] = [];
  for (let index = 0; index < COPIES; index++) {
    // The site as a fresh clone has it: nothing Astro or vigie wrote (.astro/, the build, the state folder).
    for (const written of [".astro", "dist", ".opencode"]) rmSync(join(site.root, written), { recursive: true, force: true });
    assert.ok(!existsSync(join(site.root, ".astro")));
    const result = await run("npx", ["--no-install", "vigie", "validate", "--json", "report.json"], { cwd: site.root, timeoutMs: 300_000 });
    const report = JSON.parse(readText(join(site.root, "report.json"), result.stderr)) as ValidationReport;
    const dev = report.steps.find((step) => step.name === "dev server");
    const build = report.steps.find((step) => step.name === "build");
    outcomes.push(`${index + 1}: dev ${dev?.status} (${dev?.summary}), build ${build?.status}, ${report.verdict} in ${report.durationS} s`);
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
