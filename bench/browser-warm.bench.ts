// The same page checked by js_errors with one warm Chromium (its warm page, wiped between checks)
// against a fresh Chromium launched per check (what a tool that launches per call pays).
// 20 alternating runs on the production preview of the blog.
import { checkJsErrors } from "../packages/vigie/src/core/browser/load/jsErrors.ts";
import { BrowserSession } from "../packages/vigie/src/core/browser/session/session.ts";
import { BLOG_ROOT, buildBlog, serveBlog } from "../packages/vigie/test/support/blog.ts";
import { median, ms } from "./stats.ts";

export default async function (): Promise<string> {
  await buildBlog(BLOG_ROOT);
  const preview = await serveBlog(BLOG_ROOT, "preview");
  const warm = new BrowserSession();
  const runs = 20;
  const warmTimes: number[] = [];
  const coldTimes: number[] = [];
  const paths = ["/", "/articles/mermaid-dans-le-navigateur/"];
  const results: string[] = [];
  try {
    for (const path of paths) {
      const url = `${preview.url}${path}`;
      await checkJsErrors(warm, url); // launch once, outside the timing
      warmTimes.length = 0;
      coldTimes.length = 0;
      for (let run = 0; run < runs; run += 1) {
        const order = run % 2 === 0 ? ["warm", "cold"] : ["cold", "warm"];
        for (const kind of order) {
          const started = performance.now();
          if (kind === "warm") {
            await checkJsErrors(warm, url);
            warmTimes.push(performance.now() - started);
          } else {
            const cold = new BrowserSession();
            await checkJsErrors(cold, url);
            await cold.close();
            coldTimes.push(performance.now() - started);
          }
        }
      }
      const w = median(warmTimes);
      const c = median(coldTimes);
      results.push(`| \`${path}\` | ${ms(w)} | ${ms(c)} | ${(c / w).toFixed(1)}x |`);
    }
  } finally {
    await warm.close();
    await preview.stop();
  }
  return [
    "## Browser checks: warm session vs a launch per check",
    "",
    `js_errors on the blog's production preview, ${runs} alternating runs per page, medians (${new Date().toISOString().slice(0, 10)}). Target: warm at least 8x faster on the clean page.`,
    "",
    "| page | warm (one Chromium, its warm page wiped between checks) | cold (launch + check + close) | ratio |",
    "| --- | --- | --- | --- |",
    ...results,
  ].join("\n");
}
