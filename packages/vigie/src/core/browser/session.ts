// One warm Chromium per process: launched on first use, shared by every check (each in
// a fresh context, or for js_errors in a warm page wiped of what the check before left),
// relaunched when it crashed, closed after an idle period and at exit.

import type { Browser, BrowserContext, BrowserContextOptions, CDPSession, Page, Response } from "playwright-core";
import { onExit } from "../process/exitHooks.ts";
import { commandOf, listProcesses } from "../process/inspect.ts";
import { signalProcess } from "../process/kill.ts";
import { servedByVigie } from "../staticServer.ts";
import { sleep, withTimeout } from "../wait.ts";
import { HYDRATION_WATCH } from "./hydration.ts";
import { SCROLL_WATCH } from "./islands.ts";
import { launchChromium } from "./launch.ts";

/**
 * A page kept warm between checks (its context, renderer process and compiled scripts), and
 * what must be wiped before the next check: the origins its documents had (their storage),
 * and whether the HTTP cache got a response Chromium could use again without asking.
 */
interface WarmPage {
  key: string;
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

export interface SessionOptions {
  /** Close the browser after this long without a check. Default 60 s. */
  idleMs?: number;
}

export class BrowserSession {
  #browser: Browser | undefined;
  #launching: Promise<Browser> | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #active = 0;
  #launches = 0;
  /** Warm pages between two checks (being wiped, or clean). */
  #warmPages: WarmPage[] = [];
  /** A fresh context and page made ahead, in idle time, for the next check. */
  #spare: { key: string; ready: Promise<{ context: BrowserContext; page: Page } | undefined> } | undefined;
  readonly idleMs: number;

  constructor(options: SessionOptions = {}) {
    this.idleMs = options.idleMs ?? 60_000;
  }

  /** How many times this session launched Chromium (1 while it stays warm). */
  get launches(): number {
    return this.#launches;
  }

  get running(): boolean {
    return this.#browser?.isConnected() ?? false;
  }

  /** The pid of the Chromium this session launched, while it runs. */
  get pid(): number | undefined {
    return this.#browser?.isConnected() ? this.#browserPid : undefined;
  }
  #browserPid: number | undefined;
  /** Removes the exit hook that kills this session's Chromium; set while one runs. */
  #unhook: (() => void) | undefined;

  async browser(): Promise<Browser> {
    if (this.#browser?.isConnected()) return this.#browser;
    this.#launching ??= (async () => {
      try {
        const browser = await launchChromium();
        this.#launches += 1;
        this.#browserPid = findChromiumChild();
        // No Chromium may outlive this process: killed at exit (or on a signal nobody handles).
        this.#unhook?.();
        this.#unhook = onExit(() => this.killNow());
        browser.on("disconnected", () => {
          if (this.#browser !== browser) return;
          this.#browser = undefined;
          this.#warmPages = [];
          this.#unhook?.();
          this.#unhook = undefined;
        });
        this.#browser = browser;
        return browser;
      } finally {
        this.#launching = undefined;
      }
    })();
    return this.#launching;
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
    this.#active += 1;
    this.#cancelIdle();
    const key = JSON.stringify(options);
    try {
      const fresh = (await this.#takeSpare(key)) ?? (await this.#makePair(options));
      if (!fresh) throw new Error("the browser closed while a check started");
      try {
        return await check(fresh.page, fresh.context);
      } finally {
        // The answer does not wait for the context to close (a renderer's teardown, about
        // 0.2 s); close() waits for it.
        this.#closeInBackground(fresh.context);
        if (this.running) this.#prepareSpare(key, options);
      }
    } finally {
      this.#active -= 1;
      if (this.#active === 0) this.#armIdle();
    }
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
    this.#active += 1;
    this.#cancelIdle();
    const key = JSON.stringify(options);
    try {
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
    } finally {
      this.#active -= 1;
      if (this.#active === 0) this.#armIdle();
    }
  }

  async #makeWarm(key: string, options: BrowserContextOptions): Promise<WarmPage> {
    const pair = (await this.#takeSpare(key)) ?? (await this.#makePair(options));
    if (!pair) throw new Error("the browser closed while a check started");
    const { context, page } = pair;
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
      const warm: WarmPage = { key, context, page, cdp, origins: new Set(), staleable: false, ready: Promise.resolve(true) };
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
    warm.ready = withTimeout(this.#wipe(warm), 10_000, async () => undefined).catch(() => false);
    this.#warmPages.push(warm);
    while (this.#warmPages.length > MAX_WARM_PAGES) {
      const extra = this.#warmPages.shift();
      if (extra) this.#closeInBackground(extra.context);
    }
  }

  async #wipe(warm: WarmPage): Promise<boolean> {
    const { page, context, cdp } = warm;
    if (page.isClosed() || !this.running) return false;
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
      if ((await warm.ready) && this.running && !warm.page.isClosed()) return warm;
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

  async #makePair(options: BrowserContextOptions): Promise<{ context: BrowserContext; page: Page }> {
    const browser = await this.browser();
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

  async #takeSpare(key: string): Promise<{ context: BrowserContext; page: Page } | undefined> {
    const spare = this.#spare;
    this.#spare = undefined;
    if (!spare) return undefined;
    const pair = await spare.ready;
    if (!pair) return undefined;
    if (spare.key === key && this.running && !pair.page.isClosed()) return pair;
    await pair.context.close().catch(() => undefined);
    return undefined;
  }

  #prepareSpare(key: string, options: BrowserContextOptions): void {
    if (this.#spare) return;
    this.#spare = { key, ready: this.#makePair(options).catch(() => undefined) };
  }

  async #dropSpare(): Promise<void> {
    const spare = this.#spare;
    this.#spare = undefined;
    const pair = await spare?.ready;
    await pair?.context.close().catch(() => undefined);
  }

  #cancelIdle(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }

  #armIdle(): void {
    this.#cancelIdle();
    this.#idleTimer = setTimeout(() => void this.close(), this.idleMs);
    // An idle browser never keeps the process alive on its own.
    this.#idleTimer.unref();
  }

  /** Closes the browser (the next check launches a new one). */
  async close(): Promise<void> {
    this.#cancelIdle();
    await this.#dropSpare();
    for (const warm of this.#warmPages.splice(0)) this.#closeInBackground(warm.context);
    await Promise.all(this.#closing);
    const browser = this.#browser ?? (await this.#launching?.catch(() => undefined));
    this.#browser = undefined;
    if (browser) await browser.close().catch(() => undefined);
    this.#unhook?.();
    this.#unhook = undefined;
  }

  /** Last resort at process exit: no Chromium may outlive us. Synchronous. */
  killNow(): void {
    const pid = this.#browserPid;
    if (pid && this.#browser) signalProcess(pid, "SIGKILL");
  }
}

let shared: BrowserSession | undefined;
/** The process's shared session, used by the tools. */
export function sharedSession(): BrowserSession {
  shared ??= new BrowserSession({ idleMs: Number(process.env.VIGIE_BROWSER_IDLE_MS) || 60_000 });
  return shared;
}
