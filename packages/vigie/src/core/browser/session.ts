// One warm Chromium per process: launched on first use, shared by every check (each in
// a fresh context), relaunched when it crashed, closed after an idle period and at exit.

import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { onExit } from "../process/exitHooks.ts";
import { commandOf, listProcesses } from "../process/inspect.ts";
import { sleep, withTimeout } from "../wait.ts";
import { launchChromium } from "./launch.ts";

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
    if (pid && this.#browser) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
}

let shared: BrowserSession | undefined;
/** The process's shared session, used by the tools. */
export function sharedSession(): BrowserSession {
  shared ??= new BrowserSession({ idleMs: Number(process.env.VIGIE_BROWSER_IDLE_MS) || 60_000 });
  return shared;
}
