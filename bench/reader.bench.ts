// What reading a page as a reader does costs a page check: the load and settle alone, then
// with the scroll to the end and the wait for islands, then with one in-site navigation
// after it; and the whole crawl with and without them. On the blog's production preview,
// runs alternating, medians.

import { crawlSite, sitemapPaths } from "../packages/vigie/src/core/browser/load/crawl.ts";
import { checkJsErrors } from "../packages/vigie/src/core/browser/load/jsErrors.ts";
import { BrowserSession } from "../packages/vigie/src/core/browser/session/session.ts";
import { BLOG_ROOT, buildBlog, serveBlog } from "../packages/vigie/test/support/blog.ts";
import { median, ms } from "./stats.ts";

export default async function (): Promise<string> {
  await buildBlog(BLOG_ROOT);
  const preview = await serveBlog(BLOG_ROOT, "preview");
  const session = new BrowserSession();
  const runs = 7;
  const rows: string[] = [];
  let crawlRow = "";
  try {
    const all = (await sitemapPaths(preview.url)) ?? ["/"];
    const paths = [
      "/",
      ...all.filter((path) => /articles\/./.test(path)).slice(0, 2),
      ...all.filter((path) => /tags\//.test(path)).slice(0, 1),
    ];
    await checkJsErrors(session, `${preview.url}/`); // launch once, outside the timing
    const steps = { plain: [] as number[], read: [] as number[], navigate: [] as number[] };
    for (let run = 0; run < runs; run += 1) {
      for (const path of paths) {
        const url = `${preview.url}${path}`;
        const next = paths[(paths.indexOf(path) + 1) % paths.length] ?? "/";
        const kinds = run % 2 === 0 ? (["plain", "read", "navigate"] as const) : (["navigate", "read", "plain"] as const);
        for (const kind of kinds) {
          const started = performance.now();
          await checkJsErrors(session, url, kind === "plain" ? { read: false } : kind === "read" ? {} : { follow: [next] });
          steps[kind].push(performance.now() - started);
        }
      }
    }
    const [plain, read, navigate] = [median(steps.plain), median(steps.read), median(steps.navigate)];
    rows.push(
      `| ${paths.length} pages × ${runs} runs | ${ms(plain)} | ${ms(read)} (+${ms(read - plain)}) | ${ms(navigate)} (+${ms(navigate - read)}) |`,
    );
    const crawl = async (reader: boolean) => {
      const started = performance.now();
      const result = await crawlSite(session, preview.url, { read: reader, navigate: reader });
      return { ms: performance.now() - started, pages: result.pages.length };
    };
    const without = await crawl(false);
    const withReader = await crawl(true);
    crawlRow = `The whole crawl of the preview (${withReader.pages} pages, concurrency 4, one run each, without reading first): ${ms(without.ms)} without reading, ${ms(withReader.ms)} with it. One run each on a shared machine: compare the per-page medians above, not these two.`;
  } finally {
    await session.close();
    await preview.stop();
  }
  return [
    "## reader: the scroll and navigation steps of a page check",
    "",
    `js_errors on the blog's production preview, the same pages loaded alone, read (scrolled to the end in steps, islands waited for), and read then one in-site navigation (a link clicked, the next page read), alternating; medians per page (${new Date().toISOString().slice(0, 10)}).`,
    "",
    "| pages | load and settle | + read | + one navigation |",
    "| --- | --- | --- | --- |",
    ...rows,
    "",
    crawlRow,
    "",
    "On the islands site, `test/islands.npm.test.ts` prints the same three figures for its home page (its dev server).",
  ].join("\n");
}
