// Gives each runtime finding of a page its source: failed diagrams, failed image requests,
// errors with a stack. Reads the project's files only when there is something to locate,
// and at most once per call.

import { clip } from "../../answer.ts";
import { locateDiagram } from "../../source/diagrams.ts";
import { SourceFiles } from "../../source/files.ts";
import { hiddenEntry } from "../../source/hiddenMaps.ts";
import { locateImage } from "../../source/images.ts";
import { type Located, unknown } from "../../source/located.ts";
import { cachedFetcher, type FetchText } from "../../source/sourceMaps.ts";
import { locateStack } from "../../source/stacks.ts";
import type { PageFindings } from "./findings.ts";

/** Requests a source names by their URL (a failed fetch or XHR is made by code: its error has the stack). */
const REFERENCED = new Set(["image", "script", "stylesheet", "font", "media"]);

export interface LocateOptions {
  /** How to GET a script, a source map or the page again (default: fetch, 3 s, cached for this call). */
  fetchText?: FetchText;
  /** The project's files, when one list serves several pages (a crawl); default: listed for this call. */
  files?: SourceFiles;
}

function absoluteUrl(url: string, base: string): string | undefined {
  try {
    return new URL(url, base).href;
  } catch {
    return undefined;
  }
}

const COMPONENT_EXTENSIONS = ["tsx", "jsx", "ts", "js", "mjs", "vue", "svelte", "astro"];

/**
 * An island's component file from its module URL: on a dev server the URL is the file's
 * path; a build's chunk (`/_astro/Counter.BC_PhwWr.js`) is the module the build for checking
 * kept a map for (its entry is the component), else it names the file but not its folder,
 * so the files of that name are given as candidates, never guessed between.
 */
export async function locateIsland(files: SourceFiles, url: string, pageUrl?: string, fetchText?: FetchText): Promise<Located> {
  const path = decodeURIComponent(url.replace(/^https?:\/\/[^/]+/, "").split("?")[0] ?? "").replace(/^\/@fs\/.*?\/src\//, "/src/");
  const relative = path.replace(/^\//, "");
  if (relative.startsWith("src/") && files.read(relative)) return { source: relative };
  const chunk = /\/([^/]+?)\.[\w-]{8}\.js$/.exec(path)?.[1];
  if (!chunk) return unknown(`${clip(path, 80)} is not a file of src/`);
  const chunkUrl = pageUrl && fetchText ? absoluteUrl(url, pageUrl) : undefined;
  const text = chunkUrl && fetchText ? await fetchText(chunkUrl) : undefined;
  const entry = text === undefined ? undefined : hiddenEntry(files.root, text);
  if (entry && files.read(entry)) return { source: entry };
  const candidates = files.list(COMPONENT_EXTENSIONS).filter(
    (file) =>
      file
        .split("/")
        .pop()
        ?.replace(/\.[^.]+$/, "") === chunk,
  );
  const named = candidates.slice(0, 3).join(", ");
  return unknown(
    candidates.length
      ? `${clip(path, 60)} is a hashed chunk with no manifest or source map; candidates: ${named}${candidates.length > 3 ? ", …" : ""}`
      : `${clip(path, 60)} is a hashed chunk, and no file of src/ is named ${chunk}`,
  );
}

/** Fills `located` on diagrams, image requests, errors and islands, in place; never throws. */
export async function locateFindings(findings: PageFindings, root: string, options: LocateOptions = {}): Promise<PageFindings> {
  const files = options.files ?? new SourceFiles(root);
  const fetchText = options.fetchText ?? cachedFetcher();
  let hasSources: boolean | undefined;
  const safely = async (work: () => Located | Promise<Located>): Promise<Located> => {
    hasSources ??= files.hasSources();
    if (!hasSources) return unknown("the project has no src/");
    try {
      return await work();
    } catch (error) {
      return unknown(`could not be located: ${(error as Error).message}`.slice(0, 120));
    }
  };
  for (const failure of findings.mermaid) {
    failure.located = await safely(() => locateDiagram(files, failure.code, findings.url));
  }
  for (const request of findings.failedRequests) {
    if (REFERENCED.has(request.type)) request.located = await safely(() => locateImage(files, request.url, findings.url));
  }
  await Promise.all(
    findings.errors.map(async (error) => {
      error.located = await safely(() => locateStack(files, error.frames, findings.url, fetchText));
    }),
  );
  const islands = findings.islands ?? [];
  for (const island of islands) {
    if (island.fault || findings.errors.some((error) => error.island === island.component)) {
      island.located = await safely(() => locateIsland(files, island.url, findings.url, fetchText));
    }
  }
  // An island's error in a bundle without a source map: the island's component says more.
  for (const error of findings.errors) {
    const island = islands.find((one) => one.component === error.island);
    if (!island?.located || (error.located && "source" in error.located)) continue;
    error.located =
      "source" in island.located ? island.located : unknown(`island ${island.component}: ${island.located.sourceUnknown}`.slice(0, 200));
  }
  return findings;
}
