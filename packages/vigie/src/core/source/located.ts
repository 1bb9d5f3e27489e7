// What a source locator answers: the file and line a runtime finding comes from, or why
// that cannot be known (never a guess).

export type Located = { source: string } | { sourceUnknown: string };

export const unknown = (why: string): Located => ({ sourceUnknown: why });

/** "src/x.mdx:12": a path relative to the project root, and a 1-based line. */
export const at = (file: string, line: number): Located => ({ source: `${file}:${line}` });

/** Path segments of a page URL (decoded, lower case): what ranks one candidate file above another. */
function pageSegments(pageUrl: string | undefined): Set<string> {
  if (!pageUrl) return new Set();
  try {
    return new Set(decodeURIComponent(new URL(pageUrl).pathname).toLowerCase().split("/").filter(Boolean));
  } catch {
    return new Set();
  }
}

const GENERIC = new Set(["src", "content", "pages", "components", "layouts", "index", "articles", "posts", "blog"]);

/**
 * Picks, among places that all match, the one the page is made from: the file whose path
 * names the most segments of the page's URL (`en/mermaid-in-the-browser.mdx` for
 * `/en/articles/mermaid-in-the-browser/`). One place is taken as is; a tie is not guessed.
 */
export function pick<T extends { file: string; line: number }>(places: T[], pageUrl: string | undefined, what: string): Located {
  const unique = [...new Map(places.map((place) => [`${place.file}:${place.line}`, place])).values()];
  if (unique.length === 0) return unknown(`${what} not found in src/`);
  const only = unique.length === 1 ? unique[0] : undefined;
  if (only) return at(only.file, only.line);
  const segments = pageSegments(pageUrl);
  const score = (file: string) =>
    file
      .toLowerCase()
      .replace(/\.[a-z]+$/, "")
      .split("/")
      .filter((part) => !GENERIC.has(part) && segments.has(part)).length;
  const files = new Set(unique.map((place) => place.file));
  const ranked = [...files].map((file) => ({ file, score: score(file) })).sort((a, b) => b.score - a.score);
  const best = ranked[0];
  const first =
    best && best.score > 0 && (ranked[1]?.score ?? -1) < best.score ? unique.find((place) => place.file === best.file) : undefined;
  if (first) return at(first.file, first.line);
  if (files.size === 1 && unique[0]) return at(unique[0].file, unique[0].line);
  const names = [...files].slice(0, 3).join(", ");
  return unknown(`${what} is in ${files.size} files (${names}${files.size > 3 ? ", …" : ""})`);
}
