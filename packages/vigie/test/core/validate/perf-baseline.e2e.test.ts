// A perf baseline on a built copy of the blog, through validate's perf step: a run writes the
// home's samples and this machine (--perf-baseline), a later run after a script that holds the
// page 150 ms was added to the layout compares with it (--perf-compare) and finds the home slower,
// with the shift and its interval, and keeps the numbers of both runs in the report.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Answer } from "../../../src/core/answer.ts";
import { readSite } from "../../../src/core/astro/site.ts";
import { BrowserSession } from "../../../src/core/browser/session/session.ts";
import type { PerfBaselineFile } from "../../../src/core/checks/perfBaseline.ts";
import { startDevServer, stopDevServer } from "../../../src/core/devServer/index.ts";
import { validate } from "../../../src/core/validate/runner.ts";
import { browserTools } from "../../../src/tools/browser.ts";
import { runTool } from "../../../src/tools/run.ts";
import { type BlogCopy, copyBlog } from "../../support/blog.ts";

const LAYOUT = "src/layouts/BaseLayout.astro";
const CONFIG = { checks: { lint: false, check: false, links: false, crawl: false, a11y: false }, perfRoutes: ["/"], perfRuns: 5 };

let copy: BlogCopy;
let session: BrowserSession;
before(() => {
  copy = copyBlog("perf-baseline");
  writeFileSync(join(copy.root, "vigie.config.json"), JSON.stringify(CONFIG));
  session = new BrowserSession();
});
after(async () => {
  await session?.close();
  await stopDevServer(copy).catch(() => undefined);
  copy?.remove();
});

test("the baseline written, then the home 150 ms slower: regressed, with the shift and its interval", { timeout: 600_000 }, async () => {
  const file = join(copy.root, "perf-baseline.json");
  const first = await validate(copy, { session, perfBaseline: { write: file } });
  const perf = first.steps.find((step) => step.name === "perf");
  assert.equal(perf?.status, "ok", JSON.stringify(perf));
  assert.match(perf?.summary ?? "", /baseline of 1 pages written to .*perf-baseline\.json/);
  const baseline = JSON.parse(readFileSync(file, "utf8")) as PerfBaselineFile;
  assert.equal(baseline.version, 1);
  assert.equal(baseline.pages["/"]?.samples.loadMs.length, 5);
  assert.ok(baseline.machine.cores > 0 && baseline.machine.chromium, JSON.stringify(baseline.machine));

  // A classic script in the head that holds the parser 150 ms: every page loads that much later.
  writeFileSync(join(copy.root, "public", "hold.js"), "const started = Date.now();\nwhile (Date.now() - started < 150) {}\n");
  const layout = readFileSync(join(copy.root, LAYOUT), "utf8");
  writeFileSync(join(copy.root, LAYOUT), layout.replace("<head>", '<head>\n    <script is:inline src="/hold.js"></script>'));
  const second = await validate(copy, { session, perfBaseline: { compare: file } });
  const regression = second.findings.find((finding) => finding.rule === "perf-regression");
  console.log(`# ${regression?.message ?? JSON.stringify(second.steps.find((step) => step.name === "perf"))}`);
  assert.ok(regression, JSON.stringify(second.findings));
  assert.equal(regression.severity, "warn");
  assert.equal(regression.page, "/");
  assert.match(
    regression.message,
    // Figures under 10 ms keep a decimal ("+2.1").
    /^slower than the baseline: (load|LCP) \+[\d.]+ ms \(95 % interval \+[\d.]+ to \+[\d.]+ ms; median [\d.]+ → [\d.]+ ms over \d+ and \d+ loads; p /,
  );
  const figure = second.perf.find((entry) => entry.page === "/");
  assert.equal(figure?.baseline?.verdict, "regressed");
  assert.equal(figure?.baseline?.metrics.loadMs?.before.length, 5);
  assert.ok((figure?.baseline?.metrics.loadMs?.now.length ?? 0) >= 5);

  // The same question in one call of browser_perf, on the build served as dev_start --mode preview serves it.
  const served = await startDevServer(readSite(copy), { mode: "preview", timeoutMs: 120_000 });
  try {
    assert.equal(served.kind, "started", JSON.stringify(served));
    const perfTool = browserTools.find((tool) => tool.exportName === "perf");
    assert.ok(perfTool);
    const answer = (await runTool(perfTool, { path: "/", baseline: "perf-baseline.json" }, { project: copy })) as Answer & {
      baseline?: { verdict?: string; loads?: string; shifts?: Record<string, string> };
    };
    console.log(`# browser_perf: ${JSON.stringify(answer.baseline)}`);
    assert.equal(answer.baseline?.verdict, "regressed", JSON.stringify(answer));
    assert.match(answer.baseline?.shifts?.load ?? "", /^regressed: \+\d+ ms \(\+\d+ to \+\d+; spread \d+ %\)$/);
    assert.match(answer.baseline?.loads ?? "", /^5 in the baseline, \d+ now$/);
    assert.ok(Buffer.byteLength(JSON.stringify(answer)) <= 2048, JSON.stringify(answer));
  } finally {
    await stopDevServer(copy);
  }
});
