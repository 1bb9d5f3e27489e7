// What `vigie validate` says while it works. On a terminal: one line redrawn in place with
// the steps under way and the crawl's bar (pages done, failing so far, time left), each
// step's result on its own line as it ends. Without one (CI logs, a pipe): a line when a step
// starts and ends, and every VIGIE_PROGRESS_S seconds (default 10) a line saying what is
// still under way, so a long step is never silence.
import { pagesLine, secondsLeft } from "../core/progress.ts";
import type { ProgressEvent } from "../core/validate/runner.ts";

const MARKS = { ok: "✓", warn: "!", fail: "✗", skipped: "-", error: "✗" } as const;

export interface ProgressPrinter {
  onProgress: (event: ProgressEvent) => void;
  /** Stops the timer; call when the run ends. */
  stop: () => void;
}

export function progressPrinter(write: (text: string) => void = (text) => process.stderr.write(text), live = isLive()): ProgressPrinter {
  const running = new Map<string, number>();
  let crawl: { done: number; total: number; failing: number; path: string; started: number } | undefined;
  const seconds = (since: number) => Math.round((Date.now() - since) / 1000);
  const underWay = () =>
    [...running].map(([name, since]) =>
      name === "crawl" && crawl
        ? pagesLine("crawl", crawl.done, crawl.total, crawl.failing, secondsLeft(crawl.started, crawl.done, crawl.total))
        : `${name} ${seconds(since)} s`,
    );
  const redraw = () => {
    if (!live || running.size === 0) return;
    const bar = crawl ? ` [${"#".repeat(Math.round((crawl.done / Math.max(crawl.total, 1)) * 20)).padEnd(20, ".")}]` : "";
    write(`\r\x1b[2K  … ${underWay().join("; ")}${bar}`.slice(0, (process.stderr.columns || 100) - 1));
  };
  const every = live ? 1000 : Math.max(1, Number(process.env.VIGIE_PROGRESS_S) || 10) * 1000;
  const timer = setInterval(() => {
    if (live) redraw();
    else if (running.size) write(`vigie: … ${underWay().join("; ")}\n`);
  }, every);
  timer.unref();
  const onProgress = (event: ProgressEvent) => {
    if (event.type === "step") {
      running.set(event.name, Date.now());
      if (live) redraw();
      else write(`vigie: ${event.name}...\n`);
    } else if (event.type === "step-done") {
      const { step } = event;
      running.delete(step.name);
      if (step.name === "crawl") crawl = undefined;
      const line = `${MARKS[step.status]} ${step.name} (${(step.ms / 1000).toFixed(1)} s): ${step.summary}`;
      write(live ? `\r\x1b[2K  ${line}\n` : `vigie: ${line}\n`);
      redraw();
    } else {
      crawl = { done: event.done, total: event.total, failing: event.failing, path: event.path, started: crawl?.started ?? Date.now() };
      redraw();
    }
  };
  return { onProgress, stop: () => clearInterval(timer) };
}

const isLive = () => Boolean(process.stderr.isTTY) && !process.env.CI;
