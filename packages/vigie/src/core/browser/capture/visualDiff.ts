// visual_diff: a page's screenshot against its committed baseline, with pixelmatch.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pixelmatch from "pixelmatch";
import { PNG } from "pngjs";
import { type Project, relativePath, statePath } from "../../project.ts";
import { pruneOldest, slugForPath, timestamp } from "../page/names.ts";
import { withState } from "../page/state.ts";
import { VIEWPORTS, type ViewportName } from "../page/viewports.ts";
import { checkPage } from "../page/watch.ts";
import type { BrowserSession } from "../session/session.ts";
import { capture, KEEP_SCREENSHOTS, refuseErrorPage } from "./screenshot.ts";

/** Baselines are committed with the project. */
export const BASELINE_DIR = join(".opencode", "baselines");

export interface DiffOptions {
  viewport?: ViewportName;
  fullPage?: boolean;
  selector?: string;
  /** A saved login (storage-state file). */
  storageState?: string;
  /** pixelmatch's per-pixel colour threshold, 0..1. Default 0.1. */
  threshold?: number;
  /** Share of differing pixels still called a match. Default 0: any pixel beyond the threshold (anti-aliasing aside) is a change. */
  maxDiffRatio?: number;
  /** Write the current screenshot as the new baseline. */
  update?: boolean;
}

export interface DiffResult {
  status: "match" | "changed" | "baseline_created" | "baseline_updated";
  baseline: string;
  diffRatio?: number;
  diffPixels?: number;
  diffImage?: string;
  current?: string;
  size?: { width: number; height: number };
  baselineSize?: { width: number; height: number };
}

export async function visualDiff(
  project: Project,
  session: BrowserSession,
  url: string,
  path: string,
  options: DiffOptions = {},
): Promise<DiffResult> {
  const viewport = options.viewport ?? "desktop";
  const name = `${slugForPath(path)}-${viewport}${options.selector ? `-${slugForPath(options.selector)}` : ""}${options.fullPage === false ? "" : "-full"}`;
  const baselineFile = join(project.root, BASELINE_DIR, `${name}.png`);
  const png = await session.withPage(
    async (page) => {
      refuseErrorPage(await checkPage(page, url), "visual diff");
      return capture(page, { ...options, fullPage: options.fullPage ?? true });
    },
    withState(options.storageState, VIEWPORTS[viewport]),
  );
  const baseline = relativePath(project, baselineFile);
  const current = PNG.sync.read(png);
  const size = { width: current.width, height: current.height };
  if (options.update || !existsSync(baselineFile)) {
    const created = !existsSync(baselineFile);
    writeFileSync(statePath(project, "baselines", `${name}.png`), png);
    return { status: created ? "baseline_created" : "baseline_updated", baseline, size };
  }
  const reference = PNG.sync.read(readFileSync(baselineFile));
  const keep = (suffix: string, data: Buffer) => {
    const file = statePath(project, "screenshots", `${name}-${suffix}-${timestamp()}.png`);
    writeFileSync(file, data);
    pruneOldest(join(project.stateDir, "screenshots"), KEEP_SCREENSHOTS);
    return relativePath(project, file);
  };
  if (reference.width !== current.width || reference.height !== current.height) {
    return {
      status: "changed",
      baseline,
      size,
      baselineSize: { width: reference.width, height: reference.height },
      current: keep("current", png),
    };
  }
  const diff = new PNG({ width: current.width, height: current.height });
  const diffPixels = pixelmatch(reference.data, current.data, diff.data, current.width, current.height, {
    threshold: options.threshold ?? 0.1,
  });
  const diffRatio = Math.round((diffPixels / (current.width * current.height)) * 1e6) / 1e6;
  if (diffRatio <= (options.maxDiffRatio ?? 0)) return { status: "match", baseline, diffRatio, diffPixels, size };
  return {
    status: "changed",
    baseline,
    diffRatio,
    diffPixels,
    size,
    diffImage: keep("diff", PNG.sync.write(diff)),
    current: keep("current", png),
  };
}
