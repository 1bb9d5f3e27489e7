// Which pages changed files reach, from the running dev server's module graph (vigie's dev
// integration answers it): a module's pages through their routes, a content entry's through its
// slug, a component an article imports through that article's pages. Shared by blog_dev_changes
// (the files saved since its last look) and `validate --changed` (the files changed since a ref).
import { basename, extname, join } from "node:path";
import { readFrontmatter } from "../astro/frontmatter.ts";
import { DEV_CHANGES_ROUTE } from "../devServer/devConfig.ts";
import type { DevReachAnswer, DevRoute, Reached } from "../devServer/devProtocol.ts";
import { readText } from "../files.ts";
import type { Project } from "../project.ts";

export type { DevRoute, FileReach, Reached } from "../devServer/devProtocol.ts";

/**
 * The pages of `paths` (as a crawl knows them) the changed files reach, those reached through a
 * content entry (its own pages, not every page of its route), and the files that reach none of
 * them (not in the graph, or used by no page known).
 */
export function pagesReached(
  project: Project,
  changed: string[],
  reached: Reached,
  routes: DevRoute[],
  paths: string[],
): { reached: string[]; unused: string[]; byEntry: string[] } {
  const routeOf = routeMatcher(routes);
  const found = new Set<string>();
  const byEntry = new Set<string>();
  const unused: string[] = [];
  const bySlug = (file: string) => {
    const slugs = contentSlugs(project, file);
    return paths.filter((path) => slugs.has(lastSegment(path)));
  };
  for (const file of changed) {
    const info = reached[file];
    const pages: string[] = [];
    if (info?.content) pages.push(...bySlug(file));
    for (const entry of info?.entries ?? []) pages.push(...bySlug(entry));
    for (const path of pages) byEntry.add(path);
    if (info?.pages.length) {
      const components = new Set(info.pages);
      pages.push(
        ...paths.filter((path) => {
          const route = routeOf(path);
          return route !== undefined && components.has(route.entrypoint);
        }),
      );
    }
    if (pages.length === 0) unused.push(file);
    for (const path of pages) found.add(path);
  }
  return { reached: [...found].sort(), unused, byEntry: [...byEntry].sort() };
}

/** The route each path is served by (the first whose pattern matches), pages only. */
export function routeMatcher(routes: DevRoute[]): (path: string) => DevRoute | undefined {
  const compiled = routes
    .filter((route) => route.type === "page")
    .map((route) => {
      try {
        return { route, regex: new RegExp(route.regex) };
      } catch {
        return undefined;
      }
    })
    .filter((entry) => entry !== undefined);
  return (path) => {
    const pathname = decodeURI(path.split("?")[0] ?? path);
    const bare = pathname.length > 1 ? pathname.replace(/\/$/, "") : pathname;
    return compiled.find(({ regex }) => regex.test(pathname) || regex.test(bare))?.route;
  };
}

const lastSegment = (path: string) => path.split("?")[0]?.split("/").filter(Boolean).pop() ?? "";

/** The slugs a content entry can have in a URL: its file name, and its frontmatter's slug. */
function contentSlugs(project: Project, file: string): Set<string> {
  const slugs = new Set([basename(file, extname(file))]);
  const data = readFrontmatter(readText(join(project.root, file)) ?? "").data;
  if (typeof data?.slug === "string" && data.slug) slugs.add(data.slug.split("/").filter(Boolean).pop() ?? data.slug);
  return slugs;
}

/** What the dev server's graph says of `files` now; throws when the server does not answer as vigie's dev integration does. */
export async function askReach(origin: string, files: string[], signal?: AbortSignal): Promise<DevReachAnswer> {
  const timeout = AbortSignal.timeout(10_000);
  const response = await fetch(`${origin}${DEV_CHANGES_ROUTE}/reach?files=${encodeURIComponent(files.join(","))}`, {
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  });
  if (!response.ok || !(response.headers.get("content-type") ?? "").includes("json")) {
    throw new Error(`the dev server answered ${response.status} without its module graph`);
  }
  return (await response.json()) as DevReachAnswer;
}
