// How a page's faults are said, in one place: a fault's line, a page's summary, a fault as an
// answer's item, a fault as a validate finding's message, and a failing page as a crawl
// answer lists it. js_errors, crawl and screenshot, and validate's crawl and flows steps, all
// say them through this module, from the fault values (faults.ts), never from each other's text.
import { clip } from "../../answer.ts";
import type { Located } from "../../source/located.ts";
import { type FaultKind, type PageFault, pageFaults } from "./faults.ts";
import type { PageFindings } from "./findings.ts";

/**
 * A fault in one line: the step or navigation it came after, the island it comes from, its
 * message, where the browser places it when its source is not known, and its count.
 */
export function faultText(fault: PageFault, max = 200, withStep = true): string {
  const after = `${withStep && fault.afterStep ? `after step ${fault.afterStep}: ` : ""}${fault.after ? `after ${fault.after}: ` : ""}`;
  const island = fault.island && fault.kind !== "island" ? `island ${fault.island}: ` : "";
  const where = fault.at && !(fault.located && "source" in fault.located) ? ` (${fault.at})` : "";
  const count = fault.count > 1 ? ` (×${fault.count})` : "";
  const viewport = fault.viewport ? `(${fault.viewport}) ` : "";
  return clip(`${viewport}${after}${island}${fault.message}${where}`, max - count.length) + count;
}

const NOUNS: Record<Exclude<FaultKind, "status" | "dev-error">, [string, string]> = {
  diagram: ["failed diagram", "failed diagrams"],
  island: ["island not hydrated", "islands not hydrated"],
  hydration: ["hydration mismatch", "hydration mismatches"],
  error: ["error", "errors"],
  navigation: ["failed navigation", "failed navigations"],
  action: ["step that could not run", "steps that could not run"],
  request: ["failed request", "failed requests"],
};

/** One line for a page: its faults counted by kind ("HTTP 500, 2 errors, 1 failed request"). */
export function faultSummary(faults: readonly PageFault[], incomplete?: string): string {
  const parts: string[] = [];
  for (const fault of faults) {
    // The status alone: a server error's words are the fault's own line.
    if (fault.kind === "status")
      parts.push(fault.status === undefined ? fault.message : fault.status ? `HTTP ${fault.status}` : "no answer");
    if (fault.kind === "dev-error") parts.push(fault.errorName ? `dev error page (${fault.errorName})` : "dev error page");
  }
  for (const [kind, [one, many]] of Object.entries(NOUNS)) {
    const n = faults.filter((fault) => fault.kind === kind).length;
    if (n > 0) parts.push(`${n} ${n > 1 ? many : one}`);
  }
  if (incomplete) parts.push(`incomplete: ${incomplete}`);
  return parts.length ? parts.join(", ") : "clean: no error, no failed request";
}

/** One line for a page's findings: `faultSummary` of its faults. */
export function pageSummary(findings: PageFindings): string {
  return faultSummary(pageFaults(findings), findings.incomplete);
}

/** `source` or `sourceUnknown`, short, for an answer. */
export function whereOf(located: Located | undefined, max = 160): { source: string } | { sourceUnknown: string } | undefined {
  if (!located) return undefined;
  return "source" in located ? { source: clip(located.source, max) } : { sourceUnknown: clip(located.sourceUnknown, max) };
}

/** The source file:line a fault comes from, when known. */
export function sourceOf(fault: PageFault): string | undefined {
  return fault.located && "source" in fault.located ? fault.located.source : undefined;
}

/** A fault as an answer lists it: its text alone, or `{message|request, afterStep, source|sourceUnknown}`. */
export type FaultItem =
  | string
  | ({ message?: string; request?: string; afterStep?: number } & ({ source?: string } | { sourceUnknown?: string }));

/**
 * A fault as an answer's item: a plain string when nothing was located and no action came
 * before it, else an object with its text, its step and its source (or why it is not known).
 * `located` replaces the fault's own (undefined: a reason the answer says once for all).
 */
export function faultItem(fault: PageFault, located: Located | undefined = fault.located, max = 200): FaultItem {
  const text = faultText(fault, max, false);
  const where = whereOf(located);
  if (!where && !fault.afterStep) return text;
  return { [fault.kind === "request" ? "request" : "message"]: text, ...(fault.afterStep ? { afterStep: fault.afterStep } : {}), ...where };
}

/**
 * A fault as a finding's message: its line, and for an island whose file is not known why
 * (the candidates), as validate's crawl and flows steps say it.
 */
export function faultMessage(fault: PageFault, max = 400, withStep = true): string {
  const unknownWhy = fault.located && "sourceUnknown" in fault.located ? fault.located.sourceUnknown : undefined;
  return `${faultText(fault, max, withStep)}${unknownWhy && fault.island ? ` (source unknown: ${unknownWhy})` : ""}`;
}

/** A failing page as a crawl answer lists it: its status, its summary, and the fault to read first with its source. */
export function failingPageItem(
  page: { path: string; status: number; incomplete?: string },
  faults: readonly PageFault[],
  first: PageFault | undefined,
): { path: string; status: number; summary: string; first: string; source?: string; sourceUnknown?: string } {
  return {
    path: page.path,
    status: page.status,
    summary: faultSummary(faults, page.incomplete),
    first: first ? faultText(first, 120) : "",
    ...whereOf(first?.located, 100),
  };
}
