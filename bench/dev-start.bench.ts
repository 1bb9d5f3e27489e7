// How soon blog_dev_start returns once the dev server is up: the ready line in the log
// and the first HTTP answer are watched every 5 ms beside the start call, and the delay
// from the first of them to start's return is the figure (target: within 100 ms).
// A second series uses a server that prints no ready line, to time the HTTP path alone.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readSite } from "../packages/vigie/src/core/astro/site.ts";
import { startDevServer, stopDevServer } from "../packages/vigie/src/core/devServer/index.ts";
import { readRange } from "../packages/vigie/src/core/devServer/log.ts";
import { getLocal } from "../packages/vigie/src/core/devServer/request.ts";
import { processBackend } from "../packages/vigie/src/core/process/inspect.ts";
import { sleep } from "../packages/vigie/src/core/wait.ts";
import { freePort, killEverythingIn } from "../packages/vigie/test/core/devServer/helpers.ts";
import { type BlogCopy, copyBlog } from "../packages/vigie/test/support/blog.ts";
import { median, ms } from "./stats.ts";

const RUNS = 5;
const WATCH_MS = 5;

interface Run {
  /** From the start call: the ready line appeared, HTTP first answered, start returned. */
  line?: number;
  http?: number;
  returned: number;
  readyMs: number;
  stopMs: number;
}

/** Starts the server once, watching the log and HTTP beside the call. */
async function measure(copy: BlogCopy, command: string[] | undefined, probePath: string): Promise<Run> {
  const port = await freePort();
  const logPath = join(copy.stateDir, "dev-server.log");
  rmSync(logPath, { force: true });
  const t0 = performance.now();
  let line: number | undefined;
  let http: number | undefined;
  let done = false;
  const lineWatch = setInterval(() => {
    if (line === undefined && /Local\s+http/.test(readRange(logPath, 0).text)) line = performance.now() - t0;
  }, WATCH_MS);
  const httpWatch = (async () => {
    while (!done && http === undefined) {
      try {
        await getLocal(port, probePath, { timeoutMs: 30_000, headersOnly: true });
        http = performance.now() - t0;
      } catch {
        await sleep(WATCH_MS);
      }
    }
  })();
  const answer = await startDevServer(readSite(copy), { port, command });
  const returned = performance.now() - t0;
  if (answer.kind !== "started") throw new Error(`start failed: ${JSON.stringify(answer)}`);
  // The HTTP watcher may still be waiting for its first answer.
  await Promise.race([httpWatch, sleep(15_000, { unref: true })]);
  done = true;
  clearInterval(lineWatch);
  const stopStarted = performance.now();
  await stopDevServer(copy);
  return { line, http, returned, readyMs: answer.readyMs, stopMs: performance.now() - stopStarted };
}

function row(label: string, values: number[]): string {
  return `| ${label} | ${ms(median(values))} | ${values.map((v) => Math.round(v)).join(", ")} |`;
}

export default async function (): Promise<string> {
  const copy = copyBlog("bench-dev-start");
  // A server without a ready line: listens after ~1 s and prints nothing, so only the HTTP probe sees it.
  const silent = join(copy.root, "silent-server.mjs");
  writeFileSync(
    silent,
    'import { createServer } from "node:http";\nsetTimeout(() => createServer((q, s) => s.end("ok")).listen(Number(process.argv[2]), "127.0.0.1"), 1000);\n',
  );
  const dev: Run[] = [];
  const quiet: Run[] = [];
  try {
    for (let run = 0; run < RUNS; run++) {
      dev.push(await measure(copy, undefined, "/favicon.svg"));
      quiet.push(await measure(copy, [process.execPath, silent, "{port}"], "/"));
    }
  } finally {
    killEverythingIn(copy);
    copy.remove();
  }
  const firstSign = (run: Run) => Math.min(run.line ?? Number.POSITIVE_INFINITY, run.http ?? Number.POSITIVE_INFINITY);
  return [
    "## dev-start: how soon blog_dev_start returns once the server is up",
    "",
    `${RUNS} starts of the blog's dev server (\`npm run dev\`, Astro) and ${RUNS} of a server that prints no ready line, one after the other in one process; the log and HTTP (a static file) watched every ${WATCH_MS} ms beside the call. Process backend: ${processBackend().name} (\`VIGIE_PROCESS_BACKEND=ps npm run bench dev-start\` times the one macOS uses). Times from the start call; medians, then each run.`,
    "",
    "| measure | median | runs |",
    "|---|---|---|",
    row(
      "dev: start call → ready line in the log",
      dev.map((run) => run.line ?? Number.NaN),
    ),
    row(
      "dev: start call → first HTTP answer",
      dev.map((run) => run.http ?? Number.NaN),
    ),
    row(
      "dev: start call → start returns",
      dev.map((run) => run.returned),
    ),
    row(
      "dev: spawn → ready (readyMs in the answer)",
      dev.map((run) => run.readyMs),
    ),
    row(
      "**dev: first sign of life → start returns** (target ≤ 100 ms)",
      dev.map((run) => run.returned - firstSign(run)),
    ),
    row(
      "dev: stop (TERM to the group until it is gone)",
      dev.map((run) => run.stopMs),
    ),
    row(
      "no ready line: start call → first HTTP answer",
      quiet.map((run) => run.http ?? Number.NaN),
    ),
    row(
      "**no ready line: first HTTP answer → start returns** (target ≤ 100 ms)",
      quiet.map((run) => run.returned - (run.http ?? Number.NaN)),
    ),
    "",
    "Start returns on the ready line: the dev server prints it before its first HTTP answer, so the HTTP probe only decides for servers that print none.",
  ].join("\n");
}
