// The checking machine's network is not the site's fault. A request to another host that
// failed at the network layer (name not resolved, connection refused, reset or timed out,
// blocked) is judged only when this machine can tell the site is wrong: a name that does not
// exist while this machine resolves others (a typo in a URL). Otherwise the request is set
// aside, and the run says once which hosts it could not reach. Any HTTP answer, error
// statuses included, is the host's: it stays a finding.
import { lookup } from "node:dns/promises";
import type { Page } from "playwright-core";
import { type FailedRequest, hasFaults, type NetworkPolicy, type NetworkWatch, type PageFindings, type Unreached } from "./findings.ts";

export type { NetworkPolicy };

/** Chromium's errors of a request that never reached its host. */
const NOT_REACHED =
  /^net::ERR_(NAME_NOT_RESOLVED|NAME_RESOLUTION_FAILED|INTERNET_DISCONNECTED|ADDRESS_UNREACHABLE|CONNECTION_(REFUSED|RESET|CLOSED|ABORTED|FAILED|TIMED_OUT)|TIMED_OUT|NETWORK_ACCESS_DENIED|NETWORK_CHANGED|PROXY_CONNECTION_FAILED|TUNNEL_CONNECTION_FAILED|SOCKS_CONNECTION_FAILED|BLOCKED_BY_ADMINISTRATOR)$/;
const NO_SUCH_NAME = "net::ERR_NAME_NOT_RESOLVED";
/** An error a script threw because its request to another host failed. */
const FETCH_FAILED =
  /^(Uncaught (\(in promise\) )?)?(TypeError: )?(Failed to fetch|NetworkError when attempting to fetch resource|Load failed)\b/;

/** Node's errors of a request that never reached its host: the host (or address) is the second or fourth group. */
const NETWORK_CAUSE = /\b(getaddrinfo (?:ENOTFOUND|EAI_AGAIN) (\S+))|\b(connect (?:ECONNREFUSED|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH) (\S+))/;

/** A server-side request that never reached its host, read from what Node printed: the host, how, the words. */
export function networkCause(text: string): { host: string; reach: "not-found" | "no-connection"; cause: string } | undefined {
  const match = NETWORK_CAUSE.exec(text);
  if (!match) return undefined;
  return {
    host: (match[2] ?? match[4] ?? "").replace(/:\d+$/, ""),
    reach: match[2] ? "not-found" : "no-connection",
    cause: match[1] ?? match[3] ?? "",
  };
}

/**
 * Whether this machine's network explains a server-side request that failed, under `policy`:
 * "auto" says yes but for a name that does not exist while public names resolve here.
 */
export async function unreachableHere(reach: "not-found" | "no-connection", policy: NetworkPolicy = "auto"): Promise<boolean> {
  if (policy === "judge") return false;
  if (policy !== "auto" || reach === "no-connection") return true;
  publicNames ??= resolvesPublicNames();
  return !(await publicNames);
}
let publicNames: Promise<boolean> | undefined;

/** Well-known names: when none resolves, this machine has no public DNS (a sandbox, a firewall). */
const PROBE_HOSTS = ["example.com", "www.wikipedia.org", "cloudflare.com"];
const PROBE_TIMEOUT_MS = 2000;

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\]|::1|0\.0\.0\.0)$/i;

export function hostOf(url: string): string | undefined {
  try {
    const { protocol, hostname } = new URL(url);
    return protocol === "http:" || protocol === "https:" ? hostname : undefined;
  } catch {
    return undefined;
  }
}

/** Whether this machine resolves public names at all. Never throws. */
export async function resolvesPublicNames(hosts = PROBE_HOSTS): Promise<boolean> {
  const one = (host: string) =>
    Promise.race([
      lookup(host).then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), PROBE_TIMEOUT_MS).unref()),
    ]);
  return (await Promise.all(hosts.map(one))).some(Boolean);
}

export type { Unreached };

/** The network as a run sees it: the hosts that answered, and whether public names resolve. */
export class NetworkView implements NetworkWatch {
  readonly policy: NetworkPolicy;
  readonly #reached = new Set<string>();
  readonly #probe: () => Promise<boolean>;
  #online: Promise<boolean> | undefined;

  constructor(policy: NetworkPolicy = "auto", probe: () => Promise<boolean> = () => resolvesPublicNames()) {
    this.policy = policy;
    this.#probe = probe;
  }

  /** Hosts a page's requests got an answer from (any status). */
  reached(hosts: Iterable<string>): void {
    for (const host of hosts) this.#reached.add(host);
  }

  /** Public names resolve here: another host answered in this run, or a well-known name resolves. */
  async #resolves(site: string | undefined): Promise<boolean> {
    for (const host of this.#reached) if (host !== site && !LOOPBACK.test(host)) return true;
    this.#online ??= this.#probe();
    return this.#online;
  }

  /**
   * Whether what `page` has against it may all be set aside by `judge` (requests to other hosts
   * that never reached them, and the errors they caused): for a count made before the judgement,
   * such as a crawl's progress.
   */
  mayExplainAll(page: PageFindings, site: string | undefined): boolean {
    if (this.policy === "judge") return false;
    const candidates = page.failedRequests.filter((failed) => otherHostNotReached(failed, site) !== undefined);
    if (!candidates.length) return false;
    const errors = page.errors.filter((error) => !FETCH_FAILED.test(error.message));
    return !hasFaults({ ...page, failedRequests: page.failedRequests.filter((failed) => !candidates.includes(failed)), errors });
  }

  /**
   * Sets aside, on each page, the failed requests to other hosts that this machine could not
   * reach (and the "Failed to fetch" errors they caused), and says which hosts those were.
   * `site` is the host the pages come from (never set aside).
   */
  async judge(pages: PageFindings[], site: string | undefined): Promise<Unreached[]> {
    if (this.policy === "judge") return [];
    const byHost = new Map<string, { requests: number; pages: Set<string>; reason: string }>();
    for (const page of pages) {
      const setAside: FailedRequest[] = [];
      for (const failed of page.failedRequests) {
        const host = otherHostNotReached(failed, site);
        if (!host || !failed.reason) continue;
        // A name that does not exist, while this machine resolves others: the URL is wrong.
        if (this.policy === "auto" && failed.reason === NO_SUCH_NAME && (await this.#resolves(site))) continue;
        setAside.push(failed);
        const entry = byHost.get(host) ?? { requests: 0, pages: new Set<string>(), reason: failed.reason };
        entry.requests += 1;
        entry.pages.add(page.url);
        byHost.set(host, entry);
      }
      if (!setAside.length) continue;
      page.failedRequests = page.failedRequests.filter((failed) => !setAside.includes(failed));
      page.unreached = unreachedOf(setAside);
      // A script's request that failed for this machine's network: the error it threw is not the site's either.
      if (setAside.some((failed) => failed.type === "fetch" || failed.type === "xhr"))
        page.errors = page.errors.filter((error) => !FETCH_FAILED.test(error.message));
    }
    return [...byHost]
      .map(([host, { requests, pages: on, reason }]) => ({ host, requests, pages: on.size, reason }))
      .sort((a, b) => b.requests - a.requests || a.host.localeCompare(b.host));
  }
}

/**
 * The host of a request that never reached it, when that host is another one than the site's
 * (`site`) and not this machine: what the judgement may set aside.
 */
function otherHostNotReached(failed: FailedRequest, site: string | undefined): string | undefined {
  if (failed.status !== undefined || !failed.reason || !NOT_REACHED.test(failed.reason)) return undefined;
  const host = hostOf(failed.url);
  return host && host !== site && !LOOPBACK.test(host) ? host : undefined;
}

/** One page's hosts set aside. */
function unreachedOf(failed: FailedRequest[]): Unreached[] {
  const hosts = new Map<string, Unreached>();
  for (const request of failed) {
    const host = hostOf(request.url) ?? request.url;
    const entry = hosts.get(host) ?? { host, requests: 0, pages: 1, reason: request.reason ?? "failed" };
    entry.requests += 1;
    hosts.set(host, entry);
  }
  return [...hosts.values()];
}

/** "not judged: this machine cannot reach images.unsplash.com (118 requests on 35 pages), api.github.com (2 on 1)". */
export function unreachedNote(unreached: Unreached[], policy: NetworkPolicy = "auto", max = 5): string | undefined {
  if (!unreached.length) return undefined;
  const hosts = unreached
    .slice(0, max)
    .map(({ host, requests, pages }, index) =>
      index === 0
        ? `${host} (${requests} request${requests > 1 ? "s" : ""} on ${pages} page${pages > 1 ? "s" : ""})`
        : `${host} (${requests} on ${pages})`,
    );
  const more = unreached.length > max ? ` and ${unreached.length - max} more hosts` : "";
  const why = policy === "offline" ? "blocked (network: offline)" : "this machine cannot reach";
  return `not judged: ${why} ${hosts.join(", ")}${more}`;
}

/** Under `network: offline`, the page's requests to other hosts fail at once; returns what undoes it. */
export async function blockOtherHosts(page: Page, site: string | undefined): Promise<() => Promise<void>> {
  const other = (url: URL) =>
    (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== site && !LOOPBACK.test(url.hostname);
  const handler = (route: import("playwright-core").Route) => route.abort("internetdisconnected");
  await page.route(other, handler);
  return () => page.unroute(other, handler).catch(() => undefined);
}
