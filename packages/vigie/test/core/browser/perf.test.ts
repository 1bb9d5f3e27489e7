// CLS as Chromium and web-vitals define it today: the largest session window of layout shifts
// (a window ends after 1 s without a shift, or 5 s after it began), not the sum of them all.
// Real pages in a real Chromium. Each page shifts on a schedule that starts at its first
// contentful paint, then posts the shifts the browser reported to the test server, which only
// then lets the page's load event happen (a held image): every shift precedes perf's reading,
// and the test judges perf's figure against the very shifts of the load it measured.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import { after, before, describe, test } from "node:test";
import { measurePerf } from "../../../src/core/browser/perf/perf.ts";
import { BrowserSession } from "../../../src/core/browser/session/session.ts";

const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");

interface Shift {
  startTime: number;
  value: number;
  hadRecentInput: boolean;
}

/** A page whose content moves down by `px` at `at` ms after its first contentful paint. */
function shiftingPage(shifts: { at: number; px: number }[]): string {
  let height = 0;
  const steps = shifts.map(({ at, px }) => {
    height += px;
    return `setTimeout(() => { document.getElementById("top").style.height = "${height}px"; }, ${at});`;
  });
  const last = Math.max(...shifts.map((shift) => shift.at));
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>shifts</title><link rel="icon" href="data:,"></head>
<body style="margin:0">
<img src="/held.png" width="1" height="1" alt="" style="position:absolute;top:0;left:0">
<div id="top" style="height:0"></div>
<main style="height:3000px;background:linear-gradient(#ddd,#999)"><h1>Content that moves</h1></main>
<script>
const shifts = [];
const keep = (entries) => { for (const e of entries) shifts.push({ startTime: e.startTime, value: e.value, hadRecentInput: e.hadRecentInput }); };
const observer = new PerformanceObserver((list) => keep(list.getEntries()));
observer.observe({ type: "layout-shift", buffered: true });
let started = false;
new PerformanceObserver((list) => {
  if (started || !list.getEntries().some((entry) => entry.name === "first-contentful-paint")) return;
  started = true;
  ${steps.join("\n  ")}
  setTimeout(() => requestAnimationFrame(() => requestAnimationFrame(() => {
    keep(observer.takeRecords());
    fetch("/shifts", { method: "POST", body: JSON.stringify(shifts) });
  })), ${last + 300});
}).observe({ type: "paint", buffered: true });
</script>
</body></html>`;
}

const PAGES: Record<string, string> = {
  // Two bursts 2.5 s apart: two session windows.
  "/bursts": shiftingPage([
    { at: 100, px: 40 },
    { at: 400, px: 40 },
    { at: 2600, px: 120 },
  ]),
  // A shift every 400 ms for 6 s: no 1 s gap, but a window closes 5 s after it opened.
  "/steady": shiftingPage(Array.from({ length: 16 }, (_, index) => ({ at: 100 + index * 400, px: 20 }))),
};

/** The definition, as a reference: session windows of the shifts without recent input, the largest sum. */
function windowsOf(shifts: Shift[]): number[] {
  const windows: { first: number; last: number; sum: number }[] = [];
  for (const shift of shifts) {
    if (shift.hadRecentInput) continue;
    const current = windows.at(-1);
    if (current && shift.startTime - current.last < 1000 && shift.startTime - current.first < 5000) {
      current.sum += shift.value;
      current.last = shift.startTime;
    } else windows.push({ first: shift.startTime, last: shift.startTime, sum: shift.value });
  }
  return windows.map((window) => window.sum);
}

const session = new BrowserSession({ idleMs: 5_000 });
/** Image requests held until the page has posted its shifts (or 30 s, a guard against a hang). */
const held = new Set<ServerResponse>();
let lastShifts: Shift[] = [];
const server = createServer((request, response) => {
  const path = (request.url ?? "/").split("?")[0] ?? "/";
  const release = () => {
    for (const image of held) image.writeHead(200, { "content-type": "image/png" }).end(PNG);
    held.clear();
  };
  if (path === "/held.png") {
    held.add(response);
    const guard = setTimeout(release, 30_000);
    response.on("close", () => {
      clearTimeout(guard);
      held.delete(response);
    });
    return;
  }
  if (path === "/shifts") {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      lastShifts = JSON.parse(body) as Shift[];
      response.writeHead(204).end();
      release();
    });
    return;
  }
  const page = PAGES[path];
  if (page) response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
  else response.writeHead(404).end();
});
let base: string;

before(async () => {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no address");
  base = `http://127.0.0.1:${address.port}`;
});

after(async () => {
  await session.close();
  server.closeAllConnections();
  server.close();
});

const total = (values: number[]) => values.reduce((sum, value) => sum + value, 0);

describe("CLS: the largest session window", () => {
  test("two bursts more than 1 s apart: CLS is the larger burst, not their sum", async () => {
    const result = await measurePerf(session, `${base}/bursts`, { runs: 1, budgets: { cls: 0.1 } });
    const windows = windowsOf(lastShifts);
    const seen = `CLS ${result.medians.cls}; the measured load's shifts ${JSON.stringify(lastShifts)}`;
    assert.equal(windows.length, 2, seen);
    const largest = Math.max(...windows);
    assert.ok(total(windows) - largest > 0.01, seen);
    assert.ok(Math.abs(result.medians.cls - largest) < 0.002, `largest window ${largest.toFixed(4)}, ${seen}`);
  });

  test("shifts that never pause: a window closes 5 s after its first shift", async () => {
    const result = await measurePerf(session, `${base}/steady`, { runs: 1, budgets: {} });
    const windows = windowsOf(lastShifts);
    const seen = `CLS ${result.medians.cls}; the measured load's shifts ${JSON.stringify(lastShifts)}`;
    assert.ok(windows.length >= 2, seen);
    const largest = Math.max(...windows);
    assert.ok(total(windows) - largest > 0.01, seen);
    assert.ok(Math.abs(result.medians.cls - largest) < 0.002, `largest window ${largest.toFixed(4)}, ${seen}`);
  });
});
