// What a page check finds, as values: the page's errors, failed requests, failed diagrams,
// dev error page, islands and navigations, and the options a check takes. Types and one test
// over them, with no runtime import: what collects findings (watch.ts, recorders.ts,
// readers.ts, islands.ts) and what renders them (faults.ts) import these, not each other.
import type { Page } from "playwright-core";
import type { Action, ActionsOutcome } from "../../actions.ts";
import type { NetworkPolicy } from "../../config.ts";
import type { Located } from "../../source/located.ts";
import type { StackFrame } from "../../source/stacks.ts";

export interface FailedRequest {
  url: string;
  /** HTTP status for a response >= 400, absent for a network failure. */
  status?: number;
  /** Network error text (net::ERR_...), for a request that got no response. */
  reason?: string;
  type: string;
  /** Where the page's sources reference it, once located (js_errors). */
  located?: Located;
  /** It failed after this step of the check's actions (1-based). */
  afterStep?: number;
  /** Seen only in this viewport ("phone"). */
  viewport?: string;
}

export interface MermaidFailure {
  /** 1-based index of the diagram on the page. */
  diagram: number;
  message: string;
  /** The diagram's text as the page holds it (for finding it in the sources). */
  code?: string;
  /** Where the sources write it, once located (js_errors). */
  located?: Located;
}

export interface DevErrorPage {
  name: string;
  message: string;
  file?: string;
}

/** One distinct uncaught exception, unhandled rejection or console error of a page. */
export interface PageError {
  /** "Uncaught TypeError: x is undefined", or the console line's text. */
  message: string;
  /** Where the browser says it came from, as it names it ("/_astro/x.js:1:234"); absent when it says nothing. */
  at?: string;
  /** How many times the same message came from the same place. */
  count: number;
  /** Its stack frames, top first (at most 4); empty when it has none. */
  frames: StackFrame[];
  /** Its source once located (js_errors, a crawl with a source root). */
  located?: Located;
  /** The island whose component's code raised it, when a frame is in that component's module. */
  island?: string;
  /** For a hydration mismatch vigie cannot tie to one island: the islands it may come from. */
  islands?: string[];
  /** Seen only in this viewport ("phone"): the page's check there. */
  viewport?: string;
  /** Raised after an in-site navigation the check made: "/from/ → /to/". */
  after?: string;
  /** Raised (first) after this step of the check's actions (1-based). */
  afterStep?: number;
}

/** An in-site navigation the check made after the page was read (a link clicked, as a reader does). */
export interface Navigation {
  from: string;
  to: string;
  /** True when the site swapped the page without a load (Astro's `<ClientRouter />`). */
  swapped: boolean;
  /** Why it did not happen or did not finish. */
  failed?: string;
}

export interface Island {
  /** The component's name (Astro's `opts.name`), else its module's file name. */
  component: string;
  /** react, preact, vue, svelte or solid when the page says which; absent otherwise. */
  framework?: string;
  /** load, idle, visible, media or only. */
  directive: string;
  /** client:media's query. */
  media?: string;
  /** Size of its serialized props, in bytes. */
  propsBytes: number;
  /** Its component's module as the page names it: `/src/components/Counter.tsx` in dev, a hashed chunk in a build. */
  url: string;
  hydrated: boolean;
  /** Why it is a fault: it did not hydrate when it should have. */
  fault?: string;
  /** Why it was not hydrated when that is not a fault (a media query this viewport does not match). */
  note?: string;
  /** Its component's source, once located. */
  located?: Located;
  /** Why the fault may not be one (an error of the page may have stopped it): it is then a warning. */
  unsure?: string;
  /** Seen only in this viewport ("phone"). */
  viewport?: string;
}

export interface PageFindings {
  url: string;
  /** HTTP status of the document (0 when it never answered). */
  status: number;
  title?: string;
  /** Uncaught exceptions, unhandled rejections and console errors, each once with its count. */
  errors: PageError[];
  warnings: string[];
  failedRequests: FailedRequest[];
  mermaid: MermaidFailure[];
  devError?: DevErrorPage;
  /** The page's Astro islands, when it has any and the check read the page as a reader does. */
  islands?: Island[];
  /** The in-site navigations made after the page was read, when asked. */
  navigations?: Navigation[];
  /** Set when a wait ran out: what was still pending. */
  incomplete?: string;
  /** Set when the page answered but its check was cut short (it ran out of time): why. */
  interrupted?: string;
  /** Set when the page was checked a second time, and why: "dev server re-optimised dependencies" (its first load met the dev server's own work). */
  reloaded?: string;
  /** The path the document ended on when the server redirected it elsewhere. */
  redirectedTo?: string;
  /** The actions run after the load, when asked: how many ran, and the one that could not. */
  actions?: ActionsOutcome;
  /** The classes (".a") and ids ("#b") of the page's elements once it settled, when asked. */
  tokens?: string[];
  /** What only a narrow screen shows on the page (when asked: `narrow`), the reasons to check it on a phone too. */
  narrow?: string[];
  /** The page's check on the phone, when it had one: why, and what it cost. */
  phone?: { reason: string; ms: number; incomplete?: string; phoneStatus?: number };
  /** Other hosts this machine could not reach: the page's requests to them are not judged (network.ts). */
  unreached?: Unreached[];
}

/**
 * How requests to other hosts are judged (network.ts): "auto", the default, judges only what
 * this machine can tell is the site's fault; "judge": every failure is a finding; "ignore":
 * network failures to other hosts never are; "offline": they are blocked, and said so.
 */
export type { NetworkPolicy };

/** A host this machine could not reach: how many requests failed, on how many pages, and how. */
export interface Unreached {
  host: string;
  requests: number;
  pages: number;
  reason: string;
}

/** What a page check tells the run's view of the network (network.ts's NetworkView). */
export interface NetworkWatch {
  readonly policy: NetworkPolicy;
  reached(hosts: Iterable<string>): void;
}

export interface CheckOptions {
  /** Keep console warnings too. */
  warnings?: boolean;
  /** Navigation timeout. Default 15 s. */
  navigationTimeoutMs?: number;
  /** How long the network must stay quiet once the page's work after its load has run (afterLoad). Default 50 ms. */
  quietMs?: number;
  /** Cap on waiting for the network and for diagrams after load. Default 8 s. */
  settleTimeoutMs?: number;
  /**
   * Read the page as a reader does once it has settled: scroll to its end in steps (lazy
   * images, `client:visible` islands), wait for `client:idle` islands, and list the islands.
   */
  read?: boolean;
  /**
   * In-site paths to go to after the page was read, one after the other, by clicking a link as
   * a reader does (with `<ClientRouter />` the site swaps the page without a load); "first": the
   * page's first in-site link, only on a site with `<ClientRouter />`.
   */
  follow?: string[] | "first";
  /** Also read what only a narrow screen shows on the page (`narrow`: why it needs a check on a phone). */
  narrow?: boolean;
  /** Told the document's status as soon as it answered (a crawl keeps it when the check runs out of time later). */
  onAnswered?: (status: number) => void;
  /** A saved login (Playwright's storage-state file) the check's context opens with, when the file exists. */
  storageState?: string;
  /** A reader's actions, run in order once the page was read (before `follow`); faults after one say so. */
  actions?: Action[];
  /** Also list the classes and ids of the page's elements once it settled (`tokens`: what a stylesheet change can reach). */
  tokens?: boolean;
  /** The run's view of the network: told the hosts that answered; under "offline", other hosts are blocked. */
  network?: NetworkWatch;
  /** Called before the first navigation, while the page is still the one loaded (a crawl reads its links). */
  beforeNavigating?: (page: Page) => Promise<void>;
}

/** True when a reader would see something broken on the page. */
export function hasFaults(findings: PageFindings): boolean {
  return (
    findings.status >= 400 ||
    findings.status === 0 ||
    findings.errors.length > 0 ||
    findings.failedRequests.length > 0 ||
    findings.mermaid.length > 0 ||
    findings.devError !== undefined ||
    (findings.islands?.some((island) => island.fault !== undefined) ?? false) ||
    (findings.navigations?.some((navigation) => navigation.failed !== undefined) ?? false) ||
    findings.actions?.failed !== undefined
  );
}
