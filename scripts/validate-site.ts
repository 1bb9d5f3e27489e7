// `npm run validate`: build the blog, serve the build, and check every route in a real
// Chromium (HTTP status and runtime faults). Exit 0 when all is well, 1 otherwise.
import { launchChromium } from "../packages/vigie/src/core/browser/launch.ts";
import { buildSite, openAndWatch, sitemapPaths, startPreview } from "../test/support/site.ts";

const started = Date.now();
const say = (line: string) => process.stdout.write(`${line}\n`);

say("build...");
await buildSite();
const preview = await startPreview();
const browser = await launchChromium().catch(async (error: Error) => {
  await preview.stop();
  say(`cannot start Chromium: ${error.message}`);
  process.exit(2);
});
const problems: string[] = [];
try {
  const paths = await sitemapPaths(preview.url);
  say(`checking ${paths.length} routes from the sitemap, and the 404 page...`);
  const missing = await fetch(`${preview.url}/vigie-missing-page/`);
  if (missing.status !== 404) problems.push(`/vigie-missing-page/: expected 404, got ${missing.status}`);
  const context = await browser.newContext();
  for (const path of paths) {
    const response = await fetch(`${preview.url}${path}`, { redirect: "manual" });
    if (response.status !== 200) problems.push(`${path}: HTTP ${response.status}`);
    const page = await context.newPage();
    const faults = await openAndWatch(page, `${preview.url}${path}`);
    await page.close();
    for (const [kind, list] of Object.entries(faults)) for (const item of list) problems.push(`${path}: ${kind}: ${item}`);
  }
  await context.close();
} finally {
  await browser.close();
  await preview.stop();
}
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (problems.length > 0) {
  say(`FAIL (${seconds} s)`);
  for (const problem of problems) say(`- ${problem}`);
  process.exit(1);
}
say(`PASS: every route answers and loads without runtime fault (${seconds} s)`);
