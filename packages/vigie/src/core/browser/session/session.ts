// One warm Chromium per process: launched on first use, shared by every check (each in
// a fresh context, or for js_errors in a warm page wiped of what the check before left),
// relaunched when it crashed, closed after an idle period and at exit.
//
// The session alone owns the browser's life, and a close is ordered with new work: close()
// takes the browser, its spare page and its warm pages away at once, so no check that starts
// afterwards can be handed them; that check waits for the close to end and launches a new
// browser. The idle close never starts while a check runs. A check whose browser crashed
// under it runs once more in a new browser.

import type { Browser, BrowserContext, BrowserContextOptions, CDPSession, Page, Response } from "playwright-core";
import { onExit } from "../../process/exitHooks.ts";
import { commandOf, listProcesses } from "../../process/inspect.ts";
import { signalProcess } from "../../process/kill.ts";
import { servedByVigie } from "../../staticServer.ts";
import { sleep, withTimeout } from "../../wait.ts";
import { HYDRATION_WATCH } from "../page/hydration.ts";
import { SCROLL_WATCH } from "../page/islands.ts";
import { launchChromium } from "./launch.ts";

/**
 * A page kept warm between checks (its context, renderer process and compiled scripts), and
 * what must be wiped before the next check: the origins its documents had (their storage),
 * and whether the HTTP cache got a response Chromium could use again without asking.
 */
interface WarmPage {
  key: string;
  /** The browser the page lives in: kept only while it is the session's current one. */
  owner: Launched;
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  origins: Set<string>;
  /** A response was kept that Chromium may reuse without asking its server: the cache is cleared. */
  staleable: boolean;
  /** The wipe after its last check: true once it is clean. */
  ready: Promise<boolean>;
}

/** The path of the empty document the wipe makes on an origin (never asked of its server). */
const BLANK = "__vigie_blank__";

/** Warm pages kept for the next checks (one per check run side by side, at most). */
const MAX_WARM_PAGES = 2;

const HEURISTIC_STATUSES = new Set([200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]);

/**
 * Can Chromium's HTTP cache give this response again without asking its server (RFC 9111
 * freshness: a max-age above 0, a future Expires, or a heuristic lifetime from Last-Modified,
 * a permanent redirect), or was it prefetched (Chromium then reuses it once within 5 minutes
 * without asking)? A response marked `no-cache`, `no-store` or `max-age=0` is always asked for
 * again, and the server's answer (a 304 or the new file) is what a reader would get now.
 */
export function reusableWithoutAsking(status: number, headers: Record<string, string>, prefetch = false): boolean {
  if (prefetch) return true;
  const control = (headers["cache-control"] ?? "").toLowerCase();
  if (/\bno-store\b|\bno-cache\b/.test(control)) return false;
  const maxAge = control.match(/(?:^|[,\s])max-age\s*=\s*"?(\d+)/);
  if (maxAge) return Number(maxAge[1]) > 0;
  if (!control && /no-cache/i.test(headers.pragma ?? "")) return false;
  if (headers.expires !== undefined) {
    const expires = Date.parse(headers.expires);
    const date = Date.parse(headers.date ?? "") || Date.now();
    return !Number.isNaN(expires) && expires > date;
  }
  return status === 301 || status === 308 || (headers["last-modified"] !== undefined && HEURISTIC_STATUSES.has(status));
}

function originOf(url: string): string | undefined {
  try {
    const { protocol, origin } = new URL(url);
    return protocol === "http:" || protocol === "https:" ? origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The pid of the Chromium this process launched last: Playwright starts it as our direct
 * child. Asked of the process backend (/proc on Linux, ps elsewhere); undefined on Windows.
 */
function findChromiumChild(): number | undefined {
  let newest: { pid: number; start: number } | undefined;
  for (const stat of listProcesses()) {
    if (stat.ppid !== process.pid) continue;
    const command = commandOf(stat.pid, 100_000) ?? "";
    if (!/chrom/i.test(command) || !command.includes("--remote-debugging-pipe")) continue;
    if (!newest || stat.startTime >= newest.start) newest = { pid: stat.pid, start: stat.startTime };
  }
  return newest?.pid;
}

/** A Chromium this session launched, with what ends it at exit. */
interface Launched {
  browser: Browser;
  pid: number | undefined;
  /** Removes the exit hook that kills it; called once it is gone. */
  unhook: () => void;
}

/** How many times a check asks for a new browser when the one it was given went away under it. */
const PAIR_ATTEMPTS = 3;

/** An error Playwright gives when the browser, context or page went away under a call. */
function closedUnder(error: unknown): boolean {
  return /has been closed|Browser closed|Target closed|browser has disconnected/i.test(String((error as Error)?.message ?? error));
}

export interface SessionOptions {
  /** Close the browser after this long without a check. Default 60 s. */
  idleMs?: number;
  /** Chromium flags besides vigie's own (a proxy, `--host-resolver-rules`). */
  args?: string[];
}

export class BrowserSession {
  /** The browser new work is given; undefined while none runs, or while one is being closed. */
  #current: Launched | undefined;
  #launching: Promise<Launched> | undefined;
  /** A close under way: new work waits for it, then launches a new browser. */
  #closingNow: Promise<void> | undefined;
  /** Bumped by each close: a launch that a close overtook does not become the current browser. */
  #epoch = 0;
  /** Every browser launched and not yet gone (killed at exit, whatever state it is in). */
  readonly #alive = new Set<Launched>();
  #idleTimer: NodeJS.Timeout | undefined;
  #active = 0;
  #launches = 0;
  /** How many times the current browser went away without a close (a crash). */
  #crashes = 0;
  /** Warm pages between two checks (being wiped, or clean). */
  #warmPages: WarmPage[] = [];
  /** A fresh context and page made ahead, in idle time, for the next check. */
  #spare: { key: string; owner: Launched; ready: Promise<{ context: BrowserContext; page: Page } | undefined> } | undefined;
  readonly idleMs: number;

  readonly #args: string[];

  constructor(options: SessionOptions = {}) {
    this.idleMs = options.idleMs ?? 60_000;
    this.#args = options.args ?? [];
  }

  /** How many times this session launched Chromium (1 while it stays warm). */
  get launches(): number {
    return this.#launches;
  }

  get running(): boolean {
    return this.#current?.browser.isConnected() ?? false;
  }

  /** The pid of the Chromium this session launched, while it runs. */
  get pid(): number | undefined {
    return this.running ? this.#current?.pid : undefined;
  }

  /**
   * The browser to work in: the running one, else a new one, launched once the close under
   * way (if any) has ended. Never one that a close has taken.
   */
  async browser(): Promise<Browser> {
    for (let died = 0; ; ) {
      if (this.#closingNow) {
        await this.#closingNow;
        continue;
      }
      const current = this.#current;
      if (current?.browser.isConnected()) return current.browser;
      const epoch = this.#epoch;
      this.#launching ??= this.#launch();
      const launched = await this.#launching;
      if (this.#current === launched && launched.browser.isConnected()) return launched.browser;
      // A close took it meanwhile (the loop waits for that close and launches again), or it died at once.
      if (epoch === this.#epoch && ++died >= PAIR_ATTEMPTS) throw new Error("Chromium closed each time as soon as it was launched");
    }
  }

  async #launch(): Promise<Launched> {
    const epoch = this.#epoch;
    try {
      const browser = await launchChromium({ args: this.#args });
      this.#launches += 1;
      const launched: Launched = { browser, pid: findChromiumChild(), unhook: () => undefined };
      // No Chromium may outlive this process: killed at exit (or on a signal nobody handles).
      launched.unhook = onExit(() => {
        if (launched.pid) signalProcess(launched.pid, "SIGKILL");
      });
      this.#alive.add(launched);
      browser.on("disconnected", () => {
        this.#alive.delete(launched);
        launched.unhook();
        if (this.#current !== launched) return;
        this.#crashes += 1;
        this.#current = undefined;
        this.#warmPages = [];
        this.#spare = undefined;
      });
      // A close that came while it launched closes it; it never becomes the current browser.
      if (epoch === this.#epoch && browser.isConnected()) this.#current = launched;
      return launched;
    } finally {
      if (epoch === this.#epoch) this.#launching = undefined;
    }
  }

  /**
   * Launches the browser and makes the next check's page ahead, in the background, for a
   * check that is coming (the crawl after a build). Never throws: a failure shows at the check.
   */
  warm(options: BrowserContextOptions = {}): void {
    void this.browser()
      .then(() => {
        if (!this.running) return;
        this.#prepareSpare(JSON.stringify(options), options);
        if (this.#active === 0) this.#armIdle();
      })
      .catch(() => undefined);
  }

  /** Runs `check` in a fresh browser context, closed afterwards whatever happens. */
  async withContext<T>(check: (context: BrowserContext) => Promise<T>, options: BrowserContextOptions = {}): Promise<T> {
    return this.withPage((_page, context) => check(context), options);
  }

  /**
   * Runs `check` with a fresh page in a fresh context, both closed afterwards. A context
   * costs a renderer process, so the next one is made ahead while the browser is idle.
   */
  async withPage<T>(check: (page: Page, context: BrowserContext) => Promise<T>, options: BrowserContextOptions = {}): Promise<T> {
    const key = JSON.stringify(options);
    return this.#asCheck(async () => {
      const fresh = (await this.#takeSpare(key)) ?? (await this.#makePair(options));
      try {
        return await check(fresh.page, fresh.context);
      } finally {
        // The answer does not wait for the context to close (a renderer's teardown, about
        // 0.2 s); close() waits for it.
        this.#closeInBackground(fresh.context);
        if (this.running) this.#prepareSpare(key, options);
      }
    });
  }

  /**
   * Runs a check's work while the idle close waits for it. When the browser crashed under it
   * (not closed by the session), the work runs once more, in a new browser: a crash is no
   * finding of the page.
   */
  async #asCheck<T>(work: () => Promise<T>): Promise<T> {
    this.#active += 1;
    this.#cancelIdle();
    try {
      for (let attempt = 1; ; attempt += 1) {
        const crashes = this.#crashes;
        try {
          return await work();
        } catch (error) {
          if (attempt >= 2 || !(await this.#crashedSince(crashes))) throw error;
        }
      }
    } finally {
      this.#active -= 1;
      if (this.#active === 0) this.#armIdle();
    }
  }

  /** Did the browser crash since `crashes` were counted? A failure may come a moment before the news of the crash. */
  async #crashedSince(crashes: number): Promise<boolean> {
    const browser = this.#current?.browser;
    if (this.#crashes === crashes && browser?.isConnected()) {
      await Promise.race([new Promise((resolve) => browser.once("disconnected", resolve)), sleep(500, { unref: true })]);
    }
    return this.#crashes > crashes;
  }

  /**
   * A context of its own with one page (the session's watches installed), for a check that
   * needs a second look in other conditions (a crawl's pages on a phone); the caller closes it.
   */
  async openContext(options: BrowserContextOptions = {}): Promise<{ context: BrowserContext; page: Page }> {
    return this.#makePair(options);
  }

  /**
   * Runs `check` on a warm page that shows what a reader arriving now would see: a page kept
   * from an earlier check (its renderer process and compiled scripts stay warm) only once it
   * was wiped of everything that check left that could change a page: its scripts stopped
   * first, it is taken to about:blank with its history reset, other pages (popups) closed, every cookie of its
   * context deleted, and every storage of each origin its documents had (localStorage,
   * sessionStorage, IndexedDB, Cache Storage, service workers...) cleared. The HTTP cache is
   * kept only while each response in it must be asked for again (`no-cache`, validators:
   * Chromium then gets a 304 or the new file from the server), or comes from vigie's own
   * static server, which marks as reusable only content-hashed files; a check that stored any
   * other response (a max-age, a heuristic lifetime, a prefetch) has the cache cleared after it.
   * A check that throws does not give its page back. Side by side, each check has its own page.
   * A check that opens with a saved state (`storageState`: a login) gets a fresh context, as
   * every other check does: the wipe would delete the state it is meant to start from.
   */
  async withCleanPage<T>(check: (page: Page) => Promise<T>, options: BrowserContextOptions = {}): Promise<T> {
    if (options.storageState !== undefined) return this.withPage((page) => check(page), options);
    const key = JSON.stringify(options);
    return this.#asCheck(async () => {
      const warm = (await this.#takeWarm(key)) ?? (await this.#makeWarm(key, options));
      let result: T;
      try {
        result = await check(warm.page);
      } catch (error) {
        this.#closeInBackground(warm.context);
        throw error;
      }
      this.#giveBack(warm);
      return result;
    });
  }

  async #makeWarm(key: string, options: BrowserContextOptions): Promise<WarmPage> {
    const pair = (await this.#takeSpare(key)) ?? (await this.#makePair(options));
    const { context, page, owner } = pair;
    try {
      const cdp = await context.newCDPSession(page);
      // The wipe's empty document, made by the browser: only its path is intercepted.
      cdp.on("Fetch.requestPaused", (event: { requestId: string }) => {
        void cdp
          .send("Fetch.fulfillRequest", {
            requestId: event.requestId,
            responseCode: 200,
            responseHeaders: [
              { name: "content-type", value: "text/html" },
              { name: "cache-control", value: "no-store" },
            ],
            body: "",
          })
          .catch(() => undefined);
      });
      await cdp.send("Fetch.enable", { patterns: [{ urlPattern: `*/${BLANK}`, requestStage: "Request" }] });
      const warm: WarmPage = { key, owner, context, page, cdp, origins: new Set(), staleable: false, ready: Promise.resolve(true) };
      const watch = (watched: Page) =>
        watched.on("framenavigated", (frame) => {
          const origin = originOf(frame.url());
          if (origin) warm.origins.add(origin);
        });
      watch(page);
      context.on("page", watch);
      context.on("response", (response: Response) => {
        if (warm.staleable) return;
        const url = response.url();
        const origin = originOf(url);
        if (!origin) return;
        const prefetch = /prefetch/i.test(response.request().headers()["sec-purpose"] ?? "");
        if (!prefetch && servedByVigie(origin)) return;
        if (reusableWithoutAsking(response.status(), response.headers(), prefetch)) warm.staleable = true;
      });
      return warm;
    } catch (error) {
      this.#closeInBackground(context);
      throw error;
    }
  }

  /** Wipes the page in the background and keeps it for the next check (closed when enough are kept). */
  #giveBack(warm: WarmPage): void {
    if (warm.owner !== this.#current) {
      this.#closeInBackground(warm.context);
      return;
    }
    warm.ready = withTimeout(this.#wipe(warm), 10_000, async () => undefined).catch(() => false);
    this.#warmPages.push(warm);
    while (this.#warmPages.length > MAX_WARM_PAGES) {
      const extra = this.#warmPages.shift();
      if (extra) this.#closeInBackground(extra.context);
    }
  }

  async #wipe(warm: WarmPage): Promise<boolean> {
    const { page, context, cdp } = warm;
    if (page.isClosed() || warm.owner !== this.#current || !this.running) return false;
    for (const other of context.pages()) if (other !== page) await other.close().catch(() => undefined);
    const origins = [...warm.origins];
    warm.origins.clear();
    // No script of the site runs from here on (a timer, an unload handler), nor writes again
    // what is being cleared; the page's own scripts are run again once it is off the site.
    await cdp.send("Emulation.setScriptExecutionDisabled", { value: true });
    try {
      // sessionStorage belongs to the tab: cleared for each origin a frame of the page still has,
      // else from an empty document of that origin that the browser makes itself (the server is
      // not asked).
      for (const origin of origins) {
        const storageId = { securityOrigin: origin, isLocalStorage: false };
        const items = await cdp.send("DOMStorage.getDOMStorageItems", { storageId }).catch(() => undefined);
        if (!items) {
          await page.goto(`${origin}/${BLANK}`, { timeout: 5000 });
          await cdp.send("DOMStorage.clear", { storageId });
        } else if (items.entries.length) await cdp.send("DOMStorage.clear", { storageId });
      }
      await cdp.send("Page.navigate", { url: "about:blank" });
    } finally {
      await cdp.send("Emulation.setScriptExecutionDisabled", { value: false }).catch(() => undefined);
    }
    await context.clearCookies();
    for (const origin of origins) await cdp.send("Storage.clearDataForOrigin", { origin, storageTypes: "all" });
    if (warm.staleable) {
      await cdp.send("Network.clearBrowserCache");
      warm.staleable = false;
    }
    await cdp.send("Page.resetNavigationHistory");
    // The blank documents' own navigations are not the next check's origins.
    warm.origins.clear();
    return !page.isClosed();
  }

  async #takeWarm(key: string): Promise<WarmPage | undefined> {
    for (let index = this.#warmPages.findIndex((warm) => warm.key === key); index >= 0; ) {
      const [warm] = this.#warmPages.splice(index, 1);
      if (!warm) break;
      if ((await warm.ready) && warm.owner === this.#current && this.running && !warm.page.isClosed()) return warm;
      this.#closeInBackground(warm.context);
      index = this.#warmPages.findIndex((other) => other.key === key);
    }
    return undefined;
  }

  /** Contexts being closed after their check. */
  readonly #closing = new Set<Promise<unknown>>();

  #closeInBackground(context: BrowserContext): void {
    // A context whose page is stuck may never finish closing: wait a little, not forever.
    const closing = Promise.race([context.close().catch(() => undefined), sleep(5000, { unref: true })]);
    this.#closing.add(closing);
    void closing.then(() => this.#closing.delete(closing));
  }

  /**
   * A fresh context and page in the session's browser. When that browser went away while they
   * were being made (it crashed, or a close took it), the check is given a new browser.
   */
  async #makePair(options: BrowserContextOptions): Promise<Pair> {
    for (let attempt = 1; ; attempt += 1) {
      const browser = await this.browser();
      const owner = this.#current;
      try {
        if (!owner || owner.browser !== browser) throw new Error("Target page, context or browser has been closed");
        return { ...(await this.#pairOn(browser, options)), owner };
      } catch (error) {
        const lost = !browser.isConnected() || this.#current?.browser !== browser || closedUnder(error);
        if (!lost || attempt >= PAIR_ATTEMPTS) throw error;
      }
    }
  }

  async #pairOn(browser: Browser, options: BrowserContextOptions): Promise<{ context: BrowserContext; page: Page }> {
    const context = await withTimeout(browser.newContext({ ignoreHTTPSErrors: true, ...options }), 30_000, async () => undefined);
    try {
      // What can react to scrolling is counted from the first script on: readPage scrolls only then.
      await context.addInitScript(SCROLL_WATCH);
      // Which island each message comes from, noted as it comes (a hydration mismatch names no module).
      await context.addInitScript(HYDRATION_WATCH);
      return { context, page: await withTimeout(context.newPage(), 30_000, async () => undefined) };
    } catch (error) {
      await context.close().catch(() => undefined);
      throw error;
    }
  }

  async #takeSpare(key: string): Promise<Pair | undefined> {
    const spare = this.#spare;
    this.#spare = undefined;
    if (!spare) return undefined;
    const pair = await spare.ready;
    if (!pair) return undefined;
    const usable = spare.key === key && spare.owner === this.#current && this.running && !pair.page.isClosed();
    if (usable) return { ...pair, owner: spare.owner };
    await pair.context.close().catch(() => undefined);
    return undefined;
  }

  /** Makes the next check's context and page ahead, in the browser that runs now (never launches one). */
  #prepareSpare(key: string, options: BrowserContextOptions): void {
    const owner = this.#current;
    if (this.#spare || !owner?.browser.isConnected()) return;
    this.#spare = { key, owner, ready: this.#pairOn(owner.browser, options).catch(() => undefined) };
  }

  #cancelIdle(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }

  #armIdle(): void {
    this.#cancelIdle();
    this.#idleTimer = setTimeout(() => {
      // Work that began since the timer was armed keeps the browser.
      if (this.#active === 0) void this.close();
    }, this.idleMs);
    // An idle browser never keeps the process alive on its own.
    this.#idleTimer.unref();
  }

  /**
   * Closes the browser; the next check launches a new one once this close has ended. What the
   * browser was (its spare and warm pages, a launch under way) is taken at once, so no check
   * that starts from now on is handed any of it.
   */
  close(): Promise<void> {
    this.#cancelIdle();
    if (this.#closingNow) return this.#closingNow;
    const current = this.#current;
    const launching = this.#launching;
    const spare = this.#spare;
    this.#current = undefined;
    this.#launching = undefined;
    this.#spare = undefined;
    this.#epoch += 1;
    for (const warm of this.#warmPages.splice(0)) this.#closeInBackground(warm.context);
    const contexts = [...this.#closing, spare?.ready.then((pair) => pair?.context.close()).catch(() => undefined)];
    this.#closingNow = (async () => {
      await Promise.all(contexts);
      const launched = [current, await launching?.catch(() => undefined)];
      await Promise.all(launched.map((each) => each?.browser.close().catch(() => undefined)));
    })().finally(() => {
      this.#closingNow = undefined;
    });
    return this.#closingNow;
  }

  /** Last resort at process exit: no Chromium may outlive us. Synchronous. */
  killNow(): void {
    for (const launched of this.#alive) if (launched.pid) signalProcess(launched.pid, "SIGKILL");
  }
}

/** A check's context and page, with the browser they were made in. */
type Pair = { context: BrowserContext; page: Page; owner: Launched };

let shared: BrowserSession | undefined;
/** The process's shared session, used by the tools. */
export function sharedSession(): BrowserSession {
  shared ??= new BrowserSession({ idleMs: Number(process.env.VIGIE_BROWSER_IDLE_MS) || 60_000 });
  return shared;
}
