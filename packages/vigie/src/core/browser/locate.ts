// Gives each runtime finding of a page its source: failed diagrams, failed image requests,
// errors with a stack. Reads the project's files only when there is something to locate,
// and at most once per call.

import { locateDiagram } from "../source/diagrams.ts";
import { SourceFiles } from "../source/files.ts";
import { locateImage } from "../source/images.ts";
import { type Located, unknown } from "../source/located.ts";
import { cachedFetcher, type FetchText } from "../source/sourceMaps.ts";
import { locateStack } from "../source/stacks.ts";
import type { PageFindings } from "./watch.ts";

/** Requests a source names by their URL (a failed fetch or XHR is made by code: its error has the stack). */
const REFERENCED = new Set(["image", "script", "stylesheet", "font", "media"]);

export interface LocateOptions {
  /** How to GET a script, a source map or the page again (default: fetch, 3 s, cached for this call). */
  fetchText?: FetchText;
  /** The project's files, when one list serves several pages (a crawl); default: listed for this call. */
  files?: SourceFiles;
}

/** Fills `located` on diagrams and image requests, and `errorSources`, in place; never throws. */
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
  if (findings.errors.length > 0) {
    const frames = findings.errorFrames ?? [];
    findings.errorSources = await Promise.all(
      findings.errors.map((_, index) => safely(() => locateStack(files, frames[index] ?? [], findings.url, fetchText))),
    );
  }
  return findings;
}
