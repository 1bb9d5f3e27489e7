// validate's progress without a terminal: a line as each step starts and ends, and every
// VIGIE_PROGRESS_S seconds a line with what is under way (the crawl's pages, failing so far,
// time left); on a terminal, one line redrawn in place.
import assert from "node:assert/strict";
import { test } from "node:test";
import { progressPrinter } from "../../src/cli/progress.ts";
import type { StepRecord } from "../../src/core/validate/steps/findings.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const done = (name: string, ms: number): StepRecord => ({ name, status: "ok", ms, summary: "fine" }) as StepRecord;

test("without a terminal: a line per step, and what is under way every few seconds", async () => {
  process.env.VIGIE_PROGRESS_S = "1";
  const lines: string[] = [];
  const printer = progressPrinter((text) => lines.push(text), false);
  try {
    printer.onProgress({ type: "step", name: "astro check" });
    printer.onProgress({ type: "step", name: "crawl" });
    for (let page = 1; page <= 4; page += 1) {
      printer.onProgress({ type: "crawl", done: page, total: 40, path: `/p${page}/`, failing: page > 2 ? 1 : 0 });
      await sleep(60);
    }
    await sleep(1100);
    printer.onProgress({ type: "step-done", step: done("crawl", 1400) });
    await sleep(1100);
  } finally {
    printer.stop();
    delete process.env.VIGIE_PROGRESS_S;
  }
  const text = lines.join("");
  assert.match(text, /^vigie: astro check\.\.\.$/m);
  assert.match(text, /^vigie: … astro check \d+ s; crawl 4\/40 pages, 1 failing, about \d+ s left$/m, text);
  assert.match(text, /^vigie: ✓ crawl \(1\.4 s\): fine$/m);
  // Once the crawl has ended, only what is still under way.
  assert.match(text.slice(text.indexOf("✓ crawl")), /^vigie: … astro check \d+ s$/m, text);
  const count = lines.length;
  await sleep(1200);
  assert.equal(lines.length, count, "nothing is written once stopped");
});

test("on a terminal: the line is redrawn in place, results on lines of their own", () => {
  const lines: string[] = [];
  const printer = progressPrinter((text) => lines.push(text), true);
  try {
    printer.onProgress({ type: "step", name: "crawl" });
    printer.onProgress({ type: "crawl", done: 10, total: 20, path: "/a/", failing: 2 });
    printer.onProgress({ type: "step-done", step: done("crawl", 2000) });
  } finally {
    printer.stop();
  }
  assert.ok(lines.some((line) => line.startsWith("\r\x1b[2K  … crawl 10/20 pages, 2 failing") && line.includes("[##########..........]")));
  assert.ok(lines.some((line) => line === "\r\x1b[2K  ✓ crawl (2.0 s): fine\n"));
});
