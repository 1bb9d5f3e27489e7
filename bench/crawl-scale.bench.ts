// The whole-site crawl on a generated copy of the blog with about 1,000 pages: copies of two
// articles (EN and FR) under new slugs, titles and translation keys, built once with
// `astro build`, served from dist/ and crawled at concurrency 4, first 100 pages, then all of
// them (found from the sitemap). Target (issue 12): time per page flat from 100 to 1,000
// pages, and 1,000 pages in under 75 s.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { crawlSite, failingPages, sitemapPaths } from "../packages/vigie/src/core/browser/load/crawl.ts";
import { sharedSession } from "../packages/vigie/src/core/browser/session/session.ts";
import { serveStatic } from "../packages/vigie/src/core/staticServer.ts";
import { copyBlog, runAstro } from "../packages/vigie/test/support/blog.ts";
import { cpuByProcessType, cpuPer } from "./stats.ts";

/** Extra articles per language (BENCH_EXTRA to change). */
const EXTRA = Number(process.env.BENCH_EXTRA) || 460;
const CONCURRENCY = 4;
const TARGET_S = 75;

const SOURCES = { en: "small-tool-answers", fr: "reponses-outils-compactes" } as const;

/** `n` copies of one article per language, each pair sharing a new translation key. */
function generate(root: string): void {
  for (const [lang, slug] of Object.entries(SOURCES)) {
    const dir = join(root, "src", "content", "articles", lang);
    const text = readFileSync(join(dir, `${slug}.mdx`), "utf8");
    for (let n = 1; n <= EXTRA; n++) {
      const copy = text
        .replace(/^title: "(.*)"$/m, (_, title: string) => `title: "${title.slice(0, 100)} (${n})"`)
        .replace(/^key: .*$/m, `key: generated-${n}`);
      writeFileSync(join(dir, `${slug}-${n}.mdx`), copy);
    }
  }
}

const load = () =>
  loadavg()
    .map((v) => v.toFixed(2))
    .join(", ");

export default async function (): Promise<string> {
  const copy = copyBlog("bench-crawl-scale");
  const session = sharedSession();
  try {
    generate(copy.root);
    const articles = ["en", "fr"].reduce((sum, lang) => sum + readdirSync(join(copy.root, "src", "content", "articles", lang)).length, 0);
    const buildStarted = performance.now();
    await runAstro(copy.root, ["build"], 600_000);
    const buildS = (performance.now() - buildStarted) / 1000;
    const loadAfterBuild = load();
    const server = await serveStatic(join(copy.root, "dist"));
    try {
      const all = (await sitemapPaths(server.url)) ?? [];
      const options = { concurrency: CONCURRENCY, maxPages: 5000, base: "/", startPaths: ["/"], sourceRoot: copy.root };
      // Chromium's launch is not part of either figure.
      await crawlSite(session, server.url, { ...options, paths: ["/"] });
      const first = await crawlSite(session, server.url, { ...options, paths: all.slice(0, 100) });
      const cpuBefore = cpuByProcessType();
      const whole = await crawlSite(session, server.url, options);
      const cpu = cpuPer(cpuBefore, cpuByProcessType(), whole.pages.length);
      const loadAtEnd = load();
      const perPage = (result: { ms: number; pages: unknown[] }) => result.ms / result.pages.length;
      const ratio = perPage(whole) / perPage(first);
      const wholeS = whole.ms / 1000;
      const scaled = (wholeS * 1000) / whole.pages.length;
      const verdict = (value: number, target: number, unit: string) =>
        value <= target ? "met" : `missed by ${(value - target).toFixed(1)} ${unit}`;
      return [
        "## crawl-scale: the whole-site crawl of a generated ~1,000-page blog",
        "",
        `A copy of the blog with ${EXTRA} EN and ${EXTRA} FR copies of one article (${articles} articles in all), built once with \`astro build\` in ${buildS.toFixed(1)} s, served from dist/ by vigie's static server, crawled by \`crawlSite\` (shared session, warm Chromium, concurrency ${CONCURRENCY}, no a11y audit, as \`blog_browser_crawl\`): the first 100 pages of the sitemap, then every page (no paths given: the crawl reads the sitemap, source ${whole.source}). One run each.`,
        "",
        "| measure | pages | total | per page | target |",
        "|---|---|---|---|---|",
        `| first 100 pages | ${first.pages.length} | ${(first.ms / 1000).toFixed(1)} s | ${Math.round(perPage(first))} ms | |`,
        `| **whole site** | ${whole.pages.length} | ${wholeS.toFixed(1)} s | ${Math.round(perPage(whole))} ms | 1,000 pages < ${TARGET_S} s: ${verdict((wholeS * 1000) / whole.pages.length, TARGET_S, "s")} (${scaled.toFixed(1)} s per 1,000) |`,
        `| per-page time, whole / first 100 | | | ${ratio.toFixed(2)}× | flat (≤ 1.2×): ${ratio <= 1.2 ? "met" : `missed (${ratio.toFixed(2)}×)`} |`,
        "",
        `CPU time per page in the whole crawl, all processes: ${cpu}. On ${cpus().length} cores the crawl cannot go faster than that total divided by ${cpus().length} per page, whatever the concurrency: a 75 s target asks for at most ${TARGET_S * cpus().length} ms of CPU per page (${TARGET_S} ms of wall time a page on each core).`,
        "",
        `Failing pages in the whole crawl: ${failingPages(whole).length}. Load average (1, 5, 15 min) after the build: ${loadAfterBuild}; at the end: ${loadAtEnd} (2 cores, shared with other work).`,
      ].join("\n");
    } finally {
      await server.close();
    }
  } finally {
    await session.close();
    copy.remove();
  }
}
