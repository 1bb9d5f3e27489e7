// Shared by the blog's end-to-end tests: one build, one `astro preview` on a free
// loopback port in its own process group, killed whole at the end.
import type { BrowserContext, Page } from "playwright-core";

export { buildBlog, freePort, killGroup, type Served as Preview, serveBlog } from "../../packages/vigie/test/support/blog.ts";

import { BLOG_ROOT, buildBlog, serveBlog } from "../../packages/vigie/test/support/blog.ts";

export const ROOT = BLOG_ROOT;

/** Builds the blog at the repository root when dist/ is missing or older than its sources. */
export const buildSite = () => buildBlog(ROOT);

/** Serves the repository's dist/ with `astro preview` on a free loopback port. */
export const startPreview = () => serveBlog(ROOT, "preview");

/** Every page URL listed by the built sitemap, as paths. */
export async function sitemapPaths(baseUrl: string): Promise<string[]> {
  const index = await (await fetch(`${baseUrl}/sitemap-index.xml`)).text();
  const paths: string[] = [];
  for (const [, loc] of index.matchAll(/<loc>([^<]+)<\/loc>/g)) {
    const sitemap = await (await fetch(`${baseUrl}${new URL(loc ?? "").pathname}`)).text();
    for (const [, page] of sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)) paths.push(new URL(page ?? "").pathname);
  }
  return [...new Set(paths)];
}

export interface PageFaults {
  pageErrors: string[];
  consoleErrors: string[];
  failedRequests: string[];
  badResponses: string[];
}

/** Loads a page and collects every runtime fault: page errors, console errors, failed requests, responses >= 400. */
export async function openAndWatch(page: Page, url: string): Promise<PageFaults> {
  const faults: PageFaults = { pageErrors: [], consoleErrors: [], failedRequests: [], badResponses: [] };
  page.on("pageerror", (error) => faults.pageErrors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") faults.consoleErrors.push(message.text());
  });
  page.on("requestfailed", (request) => faults.failedRequests.push(`${request.url()} ${request.failure()?.errorText}`));
  page.on("response", (response) => {
    if (response.status() >= 400) faults.badResponses.push(`${response.status()} ${response.url()}`);
  });
  await page.goto(url, { waitUntil: "load", timeout: 20_000 });
  // Diagrams are drawn after load: wait for the page's own done flag (one round trip).
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const root = document.documentElement;
        if (root.dataset.mermaid !== "pending") return resolve();
        const observer = new MutationObserver(() => {
          if (root.dataset.mermaid === "pending") return;
          observer.disconnect();
          resolve();
        });
        observer.observe(root, { attributes: true, attributeFilter: ["data-mermaid"] });
      }),
  );
  return faults;
}

export interface PageReport extends PageFaults {
  path: string;
  diagrams: { state: string | null; svg: boolean; errorSvg: boolean }[];
}

/** Loads every path with `concurrency` pages of one context at a time; faults and diagram states per page. */
export async function checkPages(context: BrowserContext, baseUrl: string, paths: string[], concurrency = 4): Promise<PageReport[]> {
  const reports: PageReport[] = [];
  const queue = [...paths];
  const worker = async () => {
    for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
      const page = await context.newPage();
      try {
        const faults = await openAndWatch(page, `${baseUrl}${path}`);
        const diagrams = await page.$$eval(".mermaid-diagram", (hosts) =>
          hosts.map((host) => ({
            state: host.getAttribute("data-mermaid-state"),
            svg: host.querySelector("svg") !== null,
            errorSvg: host.querySelector('svg[aria-roledescription="error"]') !== null,
          })),
        );
        reports.push({ path, ...faults, diagrams });
      } finally {
        await page.close();
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return reports.sort((a, b) => a.path.localeCompare(b.path));
}
