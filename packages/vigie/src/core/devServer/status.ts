// Is the server running, is it answering, and if it died, how.

import { readText } from "../files.ts";
import { isLive, readProcStat, requireProc } from "../process/inspect.ts";
import type { Project } from "../project.ts";
import { type AstroServer, findAstroServer, type StartedBy, startedBy } from "./astroLock.ts";
import { logTail } from "./log.ts";
import { getLocal, RequestTimeout } from "./request.ts";
import { type DevMode, endedByStopRequest, files, inspect } from "./state.ts";

/** The health probe's timeout: short, so a status call stays quick. */
export const PROBE_TIMEOUT_MS = 2000;

/** How the server answered GET / (no answer: why). */
export type Health =
  | { healthy: true; httpStatus?: number }
  | { healthy: false; httpStatus?: number; problem?: "timeout" | "refused" | "no-port" };

export type StatusResult =
  | { kind: "none" }
  | { kind: "stale"; reason: string }
  /** Ended by a stop request from outside (astro dev stop, Ctrl-C): not a crash. */
  | { kind: "stopped-outside"; pid: number; port: number | undefined; signal: string | undefined }
  | { kind: "crashed"; pid: number; port: number | undefined; exitCode: number | null; signal?: string; logTail: string[] }
  /** Ours, recorded without a port yet: starting, or its start was interrupted. */
  | { kind: "starting"; pid: number; mode: DevMode; uptimeS: number }
  | ({
      kind: "running";
      pid: number;
      mode: DevMode;
      startedBy?: StartedBy;
      uptimeS?: number;
      port?: number;
      url?: string;
      /** Ours: the supervisor is gone but the server's processes still run. */
      supervisorGone?: boolean;
    } & Health);

/** Reads the state and /proc; changes nothing (a crash stays reported until the next start or stop). */
export async function devServerStatus(project: Project): Promise<StatusResult> {
  requireProc();
  const state = inspect(project);
  if (state.kind !== "running") {
    const astro = findAstroServer(project);
    if (astro.kind === "live") return astroStatus(astro.server);
  }
  if (state.kind === "none") return { kind: "none" };
  if (state.kind === "stale") return { kind: "stale", reason: state.reason };
  if (state.kind === "exited") {
    const { record, exit } = state;
    if (endedByStopRequest(exit)) return { kind: "stopped-outside", pid: record.pid, port: record.port, signal: exit?.signal };
    return {
      kind: "crashed",
      pid: record.pid,
      port: record.port,
      exitCode: exit?.exitCode ?? null,
      ...(exit?.signal ? { signal: exit.signal } : {}),
      logTail: logTail(project),
    };
  }
  const { record } = state;
  const uptimeS = Math.round((Date.now() - record.startedAt) / 1000);
  if (record.port === undefined) return { kind: "starting", pid: record.pid, mode: record.mode, uptimeS };
  const supervisorGone = !isLive(readProcStat(record.pid));
  const running = { kind: "running", pid: record.pid, mode: record.mode, uptimeS, port: record.port, url: record.url } as const;
  return { ...running, ...(supervisorGone ? { supervisorGone } : {}), ...(await probe(record.port)) };
}

/** A server Astro started (found through its lock): running, with who started it. */
async function astroStatus(server: AstroServer): Promise<StatusResult> {
  const running = {
    kind: "running",
    pid: server.pid,
    mode: server.mode,
    startedBy: startedBy(server),
    ...(server.startedAt !== undefined ? { uptimeS: Math.round((Date.now() - server.startedAt) / 1000) } : {}),
  } as const;
  if (server.port === undefined) return { ...running, healthy: false, problem: "no-port" };
  return { ...running, port: server.port, url: server.url, ...(await probe(server.port)) };
}

/** GET / on the port: healthy below 500; the status from 400 on. */
async function probe(port: number): Promise<Health> {
  try {
    const response = await getLocal(port, "/", { timeoutMs: PROBE_TIMEOUT_MS, headersOnly: true });
    const httpStatus = response.status >= 400 ? { httpStatus: response.status } : {};
    return response.status < 500 ? { healthy: true, ...httpStatus } : { healthy: false, ...httpStatus };
  } catch (error) {
    return { healthy: false, problem: error instanceof RequestTimeout ? "timeout" : "refused" };
  }
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
