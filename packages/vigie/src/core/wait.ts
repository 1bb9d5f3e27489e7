// Waiting, in one place: a pause, a poll until something holds, and a race against a
// deadline. Every wait can be cancelled with an AbortSignal.
import { setTimeout as delay } from "node:timers/promises";

export interface SleepOptions {
  signal?: AbortSignal;
  /** The pause does not keep the process alive on its own. */
  unref?: boolean;
}

/** Resolves after `ms`; rejects with the signal's reason when it is aborted first. */
export async function sleep(ms: number, options: SleepOptions = {}): Promise<void> {
  const { signal } = options;
  try {
    await delay(Math.max(0, ms), undefined, { ...(signal ? { signal } : {}), ref: !options.unref });
  } catch (error) {
    signal?.throwIfAborted();
    throw error;
  }
}

export interface WaitOptions {
  /** Give up after this long (the predicate is still asked once at the deadline). */
  timeoutMs: number;
  /** Between two looks. Default 25 ms. */
  intervalMs?: number | (() => number);
  /** Cancels the wait: it rejects with the signal's reason. */
  signal?: AbortSignal;
}

type Falsy = false | 0 | "" | null | undefined;

/**
 * Asks `predicate` now, then every `intervalMs`, until it gives a truthy value (returned) or
 * `timeoutMs` has passed (undefined). The predicate may be async; it is never asked twice at once.
 */
export async function waitUntil<T>(
  predicate: () => T | Falsy | Promise<T | Falsy>,
  options: WaitOptions,
): Promise<Exclude<T, Falsy> | undefined> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    options.signal?.throwIfAborted();
    const value = await predicate();
    if (value) return value as Exclude<T, Falsy>;
    const left = deadline - Date.now();
    if (left <= 0) return undefined;
    const interval = typeof options.intervalMs === "function" ? options.intervalMs() : (options.intervalMs ?? 25);
    await sleep(Math.min(interval, left), { signal: options.signal });
  }
}

/** Races a piece of work against a timeout; on timeout, rejects and starts `onTimeout`. */
export async function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => Promise<void>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  // If the timeout wins, the abandoned work may still fail later: never let that crash us.
  work.catch(() => undefined);
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Give up at once; the clean-up runs on its own (closing a stuck page may hang too).
      reject(new Error(`the check did not finish within ${Math.round(ms / 1000)} s`));
      onTimeout().catch(() => undefined);
    }, ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
