// The one worker pool of the core: at most so many tasks at once over a queue, which the tasks
// themselves may grow (a crawl finds links as it goes).

export interface PoolOptions<T, S> {
  /** How many workers run at once. */
  size: number;
  /** The next item, or undefined when there is none for now. */
  take: () => T | undefined;
  /** The work on one item, with the state of the worker that took it. */
  task: (item: T, state: S) => Promise<void>;
  /** Makes a worker's own state (a browser page...), before its first item. */
  open?: () => S | Promise<S>;
  /** Once aborted, no worker takes another item (the tasks under way end first). */
  signal?: AbortSignal;
}

/**
 * Runs `task` on every item `take` hands out, `size` at once. A worker that finds nothing while
 * another's task is under way (it may add items) waits for that task to end; the pool ends once
 * nothing is left and nothing is under way.
 */
export async function runPool<T, S = undefined>(options: PoolOptions<T, S>): Promise<void> {
  const { size, take, task, open, signal } = options;
  let active = 0;
  const waiting = new Set<() => void>();
  const taskEnded = () => new Promise<void>((resolve) => waiting.add(resolve));
  const worker = async () => {
    const state = open ? await open() : (undefined as S);
    while (!signal?.aborted) {
      const item = take();
      if (item === undefined) {
        if (active === 0) break;
        await taskEnded();
        continue;
      }
      active += 1;
      try {
        await task(item, state);
      } finally {
        active -= 1;
        for (const wake of waiting) wake();
        waiting.clear();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, size) }, worker));
}

/** Runs `task` on each of `items`, at most `size` at once, in their order; none starts once `signal` is aborted. */
export function eachAtMost<T>(items: readonly T[], size: number, task: (item: T) => Promise<void>, signal?: AbortSignal): Promise<void> {
  const queue = [...items];
  return runPool({ size: Math.min(size, queue.length), take: () => queue.shift(), task, ...(signal ? { signal } : {}) });
}
