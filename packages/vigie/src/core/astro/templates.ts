// The page file a URL comes from: its template. Read from the file names under src/pages as
// Astro routes them (index, [param], [...rest], folders and files starting with "_" left out),
// the most specific route first: static segments before parameters, parameters before a rest.
// A path that several routes could make counts as the most specific one's (Astro's priority:
// which route's getStaticPaths made it is not known here), or as all of those tied. Pages a site gets from elsewhere
// (an integration's injected routes) have no template here.
import { join } from "node:path";
import { walkFiles } from "../files.ts";
import { literalPattern } from "../text.ts";

const PAGE = /\.(astro|md|mdx|markdown|html)$/;

const STATIC = 3;
const PARAMETER = 2;
const ENDED = 1.5;
const REST = 1;

interface Template {
  file: string;
  pattern: RegExp;
  /** Higher for a more specific route. */
  rank: number[];
}

/** One file's route: its pattern over the path's segments, and how specific it is. */
function templateOf(file: string): Template {
  const route = file.replace(PAGE, "").replace(/(^|\/)index$/, "");
  const segments = route.split("/").filter(Boolean);
  const rank: number[] = [];
  let source = "";
  for (const segment of segments) {
    if (/^\[\.\.\.[^\]]+\]$/.test(segment)) {
      // A rest parameter matches any number of segments, none included.
      source += "(?:/.*)?";
      rank.push(REST);
      continue;
    }
    const part = segment.split(/(\[[^\]]+\])/).map((piece) => (/^\[[^\]]+\]$/.test(piece) ? "[^/]+" : literalPattern(piece)));
    source += `/${part.join("")}`;
    rank.push(/\[/.test(segment) ? PARAMETER : STATIC);
  }
  return { file, pattern: new RegExp(`^${source}/?$`), rank };
}

/**
 * Compares two ranks segment by segment: a static segment wins over a parameter, a parameter
 * over a route that ends there, which wins over a rest ("/blog" over "/blog/[...page]" for /blog).
 */
function moreSpecific(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const difference = (a[i] ?? ENDED) - (b[i] ?? ENDED);
    if (difference !== 0) return difference;
  }
  return 0;
}

/**
 * The template of each page path of the site at `root` (under `base`): the page file under
 * src/pages it comes from, relative to the root ("a | b" when routes as specific as each other
 * could make it); undefined when no file routes it.
 */
export function pageTemplates(root: string, base = "/"): (path: string) => string | undefined {
  const pages = join(root, "src", "pages");
  const templates = walkFiles(pages, { keep: (name) => PAGE.test(name) })
    .filter((file) => !file.split("/").some((part) => part.startsWith("_")))
    .map(templateOf)
    .sort((a, b) => moreSpecific(b.rank, a.rank));
  const prefix = base.replace(/\/$/, "");
  return (path) => {
    const within = prefix && path.startsWith(prefix) ? path.slice(prefix.length) || "/" : path;
    const plain = within.replace(/\/index\.html$/, "/").replace(/\.html$/, "");
    const route = plain === "/" ? "" : plain.replace(/\/$/, "");
    const matching = templates.filter((template) => template.pattern.test(route));
    const [found] = matching;
    if (!found) return undefined;
    // Routes as specific as each other ("posts/[...page]" and "posts/[...slug]"): which one made the page is not known; all are named.
    const tied = matching.filter((template) => moreSpecific(template.rank, found.rank) === 0);
    return tied.map((template) => `src/pages/${template.file}`).join(" | ");
  };
}
