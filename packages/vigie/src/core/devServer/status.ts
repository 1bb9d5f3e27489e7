// Is the server running, is it answering, and if it died, how.

import { isLive, readProcStat, requireProc } from "../process/inspect.ts";
import type { Project } from "../project.ts";
import { type AstroServer, findAstroServer } from "./astroLock.ts";
import { logTail } from "./log.ts";
import { getLocal, RequestTimeout } from "./request.ts";
import { endedByStopRequest, files, inspect, readText } from "./state.ts";

/** The health probe's timeout: short, so a status call stays quick. */
export const PROBE_TIMEOUT_MS = 2000;

export type StatusAnswer = { [key: string]: unknown; running: boolean };

/** The status tool. Reads the state and /proc; changes nothing (a crash stays reported until the next start or stop). */
export async function devServerStatus(project: Project): Promise<StatusAnswer> {
  requireProc();
  const state = inspect(project);
  if (state.kind !== "running") {
    const astro = findAstroServer(project);
    if (astro.kind === "live") return astroStatus(astro.server);
  }
  if (state.kind === "none") return { running: false, hint: "No dev server recorded; blog_dev_start starts one." };
  if (state.kind === "stale")
    return { running: false, stale: state.reason, hint: "blog_dev_start cleans this state and starts the server." };
  if (state.kind === "exited") {
    const { record, exit } = state;
    if (endedByStopRequest(exit)) {
      return {
        running: false,
        pid: record.pid,
        port: record.port,
        stopped: `from outside, by ${exit?.signal} (astro dev stop, Ctrl-C or another program), not a crash`,
        hint: "blog_dev_start starts it again.",
      };
    }
    return {
      running: false,
      pid: record.pid,
      port: record.port,
      crashed: { exitCode: exit?.exitCode ?? null, ...(exit?.signal ? { signal: exit.signal } : {}), logTail: logTail(project, 10, 900) },
      hint: 'The server died. blog_dev_logs with level "error" shows why; fix it, then blog_dev_start.',
    };
  }
  const { record } = state;
  const answer: StatusAnswer = {
    running: true,
    pid: record.pid,
    mode: record.mode,
    uptimeS: Math.round((Date.now() - record.startedAt) / 1000),
  };
  if (record.port === undefined) {
    return {
      ...answer,
      healthy: false,
      starting: true,
      hint: "The server is starting (or its start was interrupted); blog_dev_start waits for it.",
    };
  }
  answer.port = record.port;
  answer.url = record.url;
  if (!isLive(readProcStat(record.pid)))
    answer.note = "the supervisor is gone but the server's processes still run; blog_dev_stop ends them";
  return probe(answer, record.port);
}

/** A server Astro started (found through its lock): running, with who started it. */
function astroStatus(server: AstroServer): Promise<StatusAnswer> {
  const answer: StatusAnswer = {
    running: true,
    pid: server.pid,
    mode: server.mode,
    startedBy: server.background ? "astro (background)" : "astro",
  };
  if (server.startedAt !== undefined) answer.uptimeS = Math.round((Date.now() - server.startedAt) / 1000);
  if (server.port === undefined)
    return Promise.resolve({ ...answer, healthy: false, hint: "Astro's lock names no port; run `astro dev status`." });
  answer.port = server.port;
  answer.url = server.url;
  return probe(answer, server.port);
}

/** Adds `healthy` from an HTTP answer on `/`. */
async function probe(answer: StatusAnswer, port: number): Promise<StatusAnswer> {
  try {
    const response = await getLocal(port, "/", { timeoutMs: PROBE_TIMEOUT_MS, headersOnly: true });
    answer.healthy = response.status < 500;
    if (response.status >= 400) {
      answer.httpStatus = response.status;
      answer.hint = `GET / answers ${response.status}: blog_dev_http_get path "/" shows the error.`;
    }
  } catch (error) {
    answer.healthy = false;
    answer.hint =
      error instanceof RequestTimeout
        ? `GET / did not answer within ${PROBE_TIMEOUT_MS} ms: the first request after a start compiles the page; retry in a few seconds.`
        : `Nothing answers on port ${port} although the processes run: blog_dev_logs, then blog_dev_stop and blog_dev_start.`;
  }
  return answer;
}

/**
 * The port of this project's running dev server, for other tools (browser checks): ours,
 * else one Astro started (its lock). Undefined when none runs.
 */
export function readDevPort(project: Project): number | undefined {
  const state = inspect(project);
  if (state.kind !== "running") {
    const astro = findAstroServer(project);
    return astro.kind === "live" ? astro.server.port : undefined;
  }
  const fromFile = Number(readText(files.port(project))?.trim());
  return Number.isInteger(fromFile) && fromFile > 0 ? fromFile : state.record.port;
}
