// Pages a change removes (a content entry or a page file deleted or renamed) or brings back, and
// the source lines that link to them: the pages those lines render now have a broken link, and
// that is where the fix goes (restore the page, or change the link). A link is found where the
// sources write the page's path (`href="/en/x/"`, `[text](/en/x/)`); a link built from data
// (a collection listed by a page) is rendered anew without the page, and is not broken.
import { existsSync } from "node:fs";
import { basename, extname, join } from "node:path";
import type { Project } from "../project.ts";
import { fencedLines, lineAt, SourceFiles } from "../source/files.ts";
import { literalPattern } from "../text.ts";
import { askReach, pagesReached, type Reached } from "./reach.ts";

const CONTENT = /\.(md|mdx|markdown|mdoc)$/i;
const PAGE = /^src\/pages\/.+\.(astro|md|mdx|html)$/i;
const LINKING = ["astro", "md", "mdx", "markdown", "mdoc", "js", "jsx", "ts", "tsx", "vue", "svelte", "json", "yaml", "yml"];
/** At most this many source lines are named per page. */
const MAX_LINKS = 5;

/** A page a changed file makes: its path, the file, and whether the file is gone. */
export interface PageOfFile {
  path: string;
  file: string;
  deleted: boolean;
}

/** A source line that links to one of the pages. */
export interface LinkLine {
  /** The page linked to. */
  target: string;
  /** "file:line". */
  at: string;
  /** The file, relative to the root. */
  file: string;
}

/**
 * The pages of `paths` (those the last look knew) the changed content entries and page files
 * make: an entry's through its slug (its file name), a page file's through its route (no
 * parameter). Files that make no page are left out.
 */
export function pagesOfFiles(project: Project, changed: string[], reached: Reached, paths: string[]): PageOfFile[] {
  const found: PageOfFile[] = [];
  const slash = paths.filter((path) => path !== "/").every((path) => path.endsWith("/"));
  for (const file of changed) {
    const deleted = !existsSync(join(project.root, file));
    if (PAGE.test(file)) {
      const route = routeOfPageFile(file, slash);
      if (route && paths.includes(route)) found.push({ path: route, file, deleted });
      continue;
    }
    if (!CONTENT.test(file) || !(reached[file]?.content || (deleted && file.startsWith("src/")))) continue;
    const slug = basename(file, extname(file));
    for (const path of paths) if (lastSegment(path) === slug) found.push({ path, file, deleted });
  }
  return found;
}

/** "/en/about/" for src/pages/en/about.astro; undefined for a route with a parameter. */
function routeOfPageFile(file: string, slash: boolean): string | undefined {
  const bare = file.replace(/^src\/pages/, "").replace(/\.[^.]+$/, "");
  if (bare.includes("[")) return undefined;
  const path = bare.replace(/\/index$/, "") || "/";
  return path === "/" || !slash ? path : `${path}/`;
}

const lastSegment = (path: string) => path.split("/").filter(Boolean).pop() ?? "";

/**
 * The source lines that write a link to one of `targets` (an href, a Markdown link), code shown
 * in fenced blocks left out; the files of `except` (the pages' own sources) too.
 */
export function linksTo(project: Project, targets: string[], except: string[] = []): LinkLine[] {
  if (!targets.length) return [];
  const patterns = targets.map((target) => ({ target, regex: linkPattern(target) }));
  const found: LinkLine[] = [];
  for (const file of new SourceFiles(project.root).files(LINKING)) {
    if (except.includes(file.path)) continue;
    let fenced: Set<number> | undefined;
    for (const { target, regex } of patterns) {
      if (!file.text.includes(target.replace(/\/$/, ""))) continue;
      fenced ??= fencedLines(file);
      let count = 0;
      for (const match of file.text.matchAll(regex)) {
        const line = lineAt(file, match.index ?? 0);
        if (fenced.has(line) || count >= MAX_LINKS) continue;
        found.push({ target, at: `${file.path}:${line}`, file: file.path });
        count += 1;
      }
    }
  }
  return found;
}

/** The path written as a link's target: after a quote, a parenthesis or `=`, with or without its trailing slash, before its end, a #fragment or a ?query. */
function linkPattern(target: string): RegExp {
  const bare = target.length > 1 ? target.replace(/\/$/, "") : target;
  const escaped = literalPattern(bare);
  return new RegExp(`(?<=["'(\`=])${escaped}${target.length > 1 ? "/?" : ""}(?=["')\`#?\\s>])`, "g");
}

/** The pages a change removed or brought back, the lines that link to them, and the pages those lines are on. */
export interface MovedPages {
  pages: PageOfFile[];
  links: LinkLine[];
  /** The links by the page (path) they are on. */
  linking: Map<string, LinkLine[]>;
}

/**
 * What the changed files do to pages others link to: the pages they removed or brought back, the
 * lines that link to those, and the pages those lines are on (the running dev server's graph says which).
 */
export async function movedPages(
  project: Project,
  origin: string,
  answer: { changed: string[]; reached: Reached },
  paths: string[],
  removedBefore: string[],
  signal?: AbortSignal,
): Promise<MovedPages> {
  // An edit keeps a page where it is: only a file deleted, or one whose page an earlier look found removed (back now), moves it.
  const pages = pagesOfFiles(project, answer.changed, answer.reached, paths).filter(
    (page) => page.deleted || removedBefore.includes(page.path),
  );
  const links = linksTo(
    project,
    [...new Set(pages.map((page) => page.path))],
    pages.map((page) => page.file),
  );
  const linking = new Map<string, LinkLine[]>();
  if (!links.length) return { pages, links, linking };
  const files = [...new Set(links.map((link) => link.file))];
  const reach = await askReach(origin, files, signal).catch(() => undefined);
  if (!reach) return { pages, links, linking };
  for (const link of links) {
    for (const path of pagesReached(project, [link.file], reach.reached, reach.routes, paths).reached) {
      linking.set(path, [...(linking.get(path) ?? []), link]);
    }
  }
  return { pages, links, linking };
}

/** How long a page whose file was deleted may still be served: the content layer drops an entry after the reload it tells. */
const GONE_WAIT_MS = 6000;

/**
 * Whether the dev server has no page at `path` (it answers 404 or 410), asked again for at most
 * GONE_WAIT_MS while it still answers: its file was deleted, and the server may not have caught up.
 */
export async function isGone(origin: string, path: string, signal?: AbortSignal): Promise<boolean> {
  const by = Date.now() + GONE_WAIT_MS;
  for (;;) {
    const status = await statusOf(origin, path, signal);
    if (status === 404 || status === 410) return true;
    if (Date.now() > by || signal?.aborted) return false;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function statusOf(origin: string, path: string, signal?: AbortSignal): Promise<number | undefined> {
  const timeout = AbortSignal.timeout(15_000);
  try {
    const response = await fetch(`${origin}${path}`, { redirect: "manual", signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    await response.arrayBuffer().catch(() => undefined);
    return response.status;
  } catch {
    return undefined;
  }
}
