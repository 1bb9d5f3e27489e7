// A page's faults as values: one list, in the order a reader meets them (the document's
// status, the dev error page, failed diagrams, islands, errors, failed requests), each with
// its kind, message, count and source (or why it is not known). Every face (a tool's
// answer, a validate finding, a summary line) renders this list through faultView.ts; none
// computes its own.
import type { Located } from "../../source/located.ts";
import type { PageError, PageFindings } from "./findings.ts";

export type FaultKind = "status" | "dev-error" | "diagram" | "island" | "hydration" | "error" | "navigation" | "action" | "request";

export interface PageFault {
  kind: FaultKind;
  message: string;
  /** For the status fault: the page's HTTP status, 0 when no answer came. */
  status?: number;
  /** For the dev error page: the error's name ("TypeError"). */
  errorName?: string;
  /** How many times it came (an error thrown on every scroll step is one fault). */
  count: number;
  /** Where the browser places it ("/_astro/x.js:1:234"): said when its source is not known. */
  at?: string;
  /** Its source file:line, or why that is not known; absent when it was not looked for. */
  located?: Located;
  /** The island it comes from: its component's name. */
  island?: string;
  /** For a failed request: its URL. */
  url?: string;
  /** Raised after an in-site navigation the check made: "/from/ → /to/". */
  after?: string;
  /** Raised (first) after this step of the check's actions (1-based). */
  afterStep?: number;
  /** For a 5xx page or request: the error its server logged ("Error: boom"), when it was asked. */
  serverError?: string;
  /** Why vigie is not sure it is a fault, or not sure where it comes from: a warning, not a failure. */
  unsure?: string;
  /** For a 5xx page whose render failed on a request this machine cannot make: that host (pageCauses.ts). */
  unreachedHost?: string;
  /** Seen only in this viewport ("phone"), and how it is said ("phone 390×844"). */
  viewport?: string;
}

/** React's production error codes a page check meets, with React's own words (react.dev/errors). */
const REACT_ERRORS: Record<string, string> = {
  "418": "Hydration failed because the server rendered HTML didn't match the client",
  "419": "The server could not finish this Suspense boundary, likely due to an error during server rendering",
  "421": "This Suspense boundary received an update before it finished hydrating",
  "422": "There was an error while hydrating this Suspense boundary",
  "423": "There was an error while hydrating; the entire root will switch to client rendering",
  "425": "Text content does not match server-rendered HTML",
  "185": "Maximum update depth exceeded",
  "301": "Too many re-renders",
  "310": "Rendered more hooks than during the previous render",
};

/** React (its production codes and its dev words), Vue, Svelte, Preact (dev) and Solid (dev) telling that the server's HTML and the client's render differ. */
const HYDRATION =
  /Minified React error #(41[89]|42[1-5])\b|Hydration failed because|didn't match the client|Text content does not match|Hydration (?:node|text|text content|children|attribute|class|style) mismatch|Hydration completed but contains mismatches|hydration_(?:mismatch|html_changed|attribute_changed)|hydration mismatch|SSR'd HTML containing different DOM-nodes|Unable to find DOM nodes for hydration key/i;

/** A React production error's code decoded into React's words; other messages as they are. */
export function decodeReactError(message: string): string {
  const match = message.match(/Minified React error #(\d+)[^;]*?(?:; visit (\S+) for the full message[^.]*\.?)?/);
  const code = match?.[1];
  const text = code ? REACT_ERRORS[code] : undefined;
  if (!code || !text) return message;
  return message.replace(/Minified React error #\d+[\s\S]*$/, `React error #${code}: ${text}`);
}

/** Is this error a hydration mismatch (the server's HTML and the client's render differ)? */
export function isHydrationError(error: Pick<PageError, "message">): boolean {
  return HYDRATION.test(error.message);
}

function errorFault(error: PageError): PageFault {
  const hydration = isHydrationError(error);
  const message = hydration || /Minified React error/.test(error.message) ? decodeReactError(error.message) : error.message;
  const among = hydration && !error.island && error.islands && error.islands.length > 1 ? error.islands : undefined;
  return {
    kind: hydration ? "hydration" : "error",
    message: among ? `${message} in one of the islands ${among.join(", ")} (vigie cannot tell which)` : message,
    ...(among ? { unsure: `it comes from one of the islands ${among.join(", ")}; vigie cannot tell which` } : {}),
    ...viewportOf(error.viewport),
    count: error.count,
    ...(error.at ? { at: error.at } : {}),
    ...(error.located ? { located: error.located } : {}),
    ...(error.island ? { island: error.island } : {}),
    ...(error.after ? { after: error.after } : {}),
    ...(error.afterStep ? { afterStep: error.afterStep } : {}),
  };
}

/** The faults of one page, in the order a reader meets them. */
export function pageFaults(findings: PageFindings): PageFault[] {
  const faults: PageFault[] = [];
  const origin = originOf(findings.url);
  if (findings.status === 0 || findings.status >= 400) {
    faults.push({ kind: "status", message: findings.status ? `HTTP ${findings.status}` : "no answer", count: 1, status: findings.status });
  }
  if (findings.devError) {
    const { name, message, file } = findings.devError;
    faults.push({
      kind: "dev-error",
      message: `dev error page: ${name}: ${message}`,
      count: 1,
      errorName: name,
      ...(file ? { at: file } : {}),
    });
  }
  for (const diagram of findings.mermaid) {
    faults.push({
      kind: "diagram",
      message: `Mermaid diagram ${diagram.diagram} failed: ${diagram.message}`,
      count: 1,
      ...(diagram.located ? { located: diagram.located } : {}),
    });
  }
  for (const island of findings.islands ?? []) {
    if (!island.fault) continue;
    faults.push({
      kind: "island",
      message: `island ${island.component} (${island.framework ?? "framework unknown"}, client:${island.directive}) ${island.fault}${island.unsure ? ` (vigie is not sure: ${island.unsure})` : ""}`,
      count: 1,
      island: island.component,
      ...(island.located ? { located: island.located } : {}),
      ...(island.unsure ? { unsure: island.unsure } : {}),
      ...viewportOf(island.viewport),
      // An island that failed on an action (its error raised after it) is that action's.
      ...actionOfIsland(findings, island.component),
    });
  }
  for (const error of findings.errors) faults.push(errorFault(error));
  for (const navigation of findings.navigations ?? []) {
    if (navigation.failed)
      faults.push({ kind: "navigation", message: `${navigation.from} → ${navigation.to}: ${navigation.failed}`, count: 1 });
  }
  const failedAction = findings.actions?.failed;
  if (failedAction) {
    const near = failedAction.candidates?.length ? `; on the page: ${failedAction.candidates.join(", ")}` : "";
    faults.push({
      kind: "action",
      message: `step ${failedAction.step} ${failedAction.action} could not run: ${failedAction.reason}${near}`,
      count: 1,
    });
  }
  for (const failed of findings.failedRequests) {
    const where = origin && failed.url.startsWith(origin) ? failed.url.slice(origin.length) : failed.url;
    faults.push({
      kind: "request",
      message: `${failed.status ?? failed.reason} ${failed.type} ${where}`,
      count: 1,
      url: failed.url,
      ...(failed.located ? { located: failed.located } : {}),
      ...(failed.afterStep ? { afterStep: failed.afterStep } : {}),
      ...viewportOf(failed.viewport),
    });
  }
  return faults;
}

/** The phone viewport a page check may also use, as faults name it. */
export const PHONE_LABEL = "phone 390×844";

function viewportOf(viewport: string | undefined): { viewport?: string } {
  return viewport ? { viewport: viewport === "phone" ? PHONE_LABEL : viewport } : {};
}

function actionOfIsland(findings: PageFindings, component: string): { afterStep?: number } {
  const action = findings.errors.find((error) => error.island === component && error.afterStep)?.afterStep;
  return action ? { afterStep: action } : {};
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
