// The one baseline of a project's "changed": what each page was when it was last checked, kept in
// one file of the state folder (.opencode/changes/baseline.json, git-ignored). Its `build` part
// holds the pages of the build (their fingerprints and whether they were ok), which `changed`
// compares a new build with; its `dev` part the faults of each page as the running dev server
// served them, which a look after an edit compares with. One rule says whether a page was ok.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { type Project, statePath } from "../project.ts";

const VERSION = 1;

/** The file that keeps a project's baseline. */
export const baselinePath = (project: Project): string => statePath(project, "changes", "baseline.json");

export interface Baseline<Build = unknown, Dev = unknown> {
  version: number;
  build?: Build;
  dev?: Dev;
}

/** The project's baseline (empty when there is none, or when it was written by another version). */
export function readBaseline<Build, Dev = unknown>(project: Project): Baseline<Build, Dev> {
  try {
    const baseline = JSON.parse(readFileSync(baselinePath(project), "utf8")) as Baseline<Build, Dev>;
    return baseline.version === VERSION ? baseline : { version: VERSION };
  } catch {
    return { version: VERSION };
  }
}

/** Replaces one part of the baseline (the build's or the dev server's), the other kept; written whole or not at all. */
export function writeBaseline(project: Project, part: "build" | "dev", value: unknown): void {
  const path = baselinePath(project);
  const baseline = { ...readBaseline(project), version: VERSION, [part]: value };
  writeFileSync(`${path}.tmp`, `${JSON.stringify(baseline)}\n`);
  renameSync(`${path}.tmp`, path);
}

/** The impacts of an accessibility violation that fail a page when the config says none. */
export const DEFAULT_FAIL_ON = ["serious", "critical"];

/** What a check found on a page, as the rule for "ok" reads it. */
export interface PageVerdictInput {
  /** Its faults (runtime errors, failed requests, HTTP status, …), unsure ones too. */
  faults: readonly unknown[];
  /** Its accessibility violations, when they were audited. */
  a11y?: readonly { impact: string }[];
  /** Set when the check of the page did not finish: what it would have found is not known. */
  unfinished?: boolean;
}

/**
 * The one rule for "this page was ok", which the baseline records: its check finished, with no
 * fault of any kind (an unsure one too: the page is checked again next time) and no
 * accessibility violation at an impact the config fails on (`a11y.failOn`, default serious and
 * critical), a theme's own too.
 */
export function pageOk(page: PageVerdictInput, failOn: readonly string[] = DEFAULT_FAIL_ON): boolean {
  if (page.unfinished || page.faults.length) return false;
  return !(page.a11y ?? []).some((violation) => failOn.includes(violation.impact));
}
