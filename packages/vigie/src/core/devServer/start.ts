// Starting: one server per project, in its own process group, recorded before it is
// waited for (so any process can find and stop it), answered with the port it really took.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, existsSync, linkSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { clip, VigieError } from "../answer.ts";
import type { Site } from "../astro/site.ts";
import { bootId, isLive, readProcStat, requireProc } from "../process/inspect.ts";
import { plannedCommand, servePlan } from "../production/servePlan.ts";
import { type Project, relativePath } from "../project.ts";
import { type AstroServer, astroLogPath, findAstroServer, removeAstroLocks, type StartedBy, startedBy } from "./astroLock.ts";
import { devScriptTakesConfig, writeDevConfig } from "./devConfig.ts";
import { withLock } from "./lock.ts";
import { logTail, openFreshLog } from "./log.ts";
import { describeHolder, isPortFree, type PortHolder, portHolder } from "./ports.ts";
import { type ReadyOutcome, waitUntilReady } from "./ready.ts";
import { untilAstroFilesWritten } from "./settled.ts";
import { clearRecord, type DevMode, type DevServerRecord, files, inspect, readExit, writeRecord } from "./state.ts";
import { endServer } from "./stop.ts";

export const DEFAULT_PORT = 4321;
export const DEFAULT_READY_TIMEOUT_MS = 30_000;
/** When no port is asked and the default one is taken, the next ones tried. */
const FALLBACK_PORTS = 20;
/** In a command, replaced by the port. */
export const PORT_PLACEHOLDER = "{port}";

/** The commands run by default, as argument arrays: no shell ever sees a port or a path. */
export const DEFAULT_COMMANDS: Record<DevMode, readonly string[]> = {
  dev: ["npm", "run", "dev", "--", "--port", PORT_PLACEHOLDER, "--host", "127.0.0.1"],
  preview: ["npm", "run", "preview", "--", "--port", PORT_PLACEHOLDER, "--host", "127.0.0.1"],
};

/**
 * The server runs under this tiny supervisor, the leader of its process group: it waits
 * for the command and writes its exit status to the file named by VIGIE_DEV_EXIT_FILE, so
 * a crash stays reportable after the process that started the server is gone. The
 * command reaches it as "$@": a constant script, arguments as an array.
 *
 * With VIGIE_DEV_OWNER set (the pid of the client that started it: an MCP server, an
 * OpenCode process), a watcher in the group ends the whole group once that process is
 * gone, however it ended (even SIGKILL): a server never outlives its client. The watcher
 * is ended as soon as the command exits.
 */
const SUPERVISOR = [
  "sh",
  "-c",
  'if [ -n "$VIGIE_DEV_OWNER" ]; then (while kill -0 "$VIGIE_DEV_OWNER" 2>/dev/null; do sleep 1; done; kill -TERM 0) & watcher=$!; fi; ' +
    '"$@"; status=$?; [ -n "$watcher" ] && kill "$watcher" 2>/dev/null; echo $status > "$VIGIE_DEV_EXIT_FILE"',
  "vigie-dev-server",
];

export interface StartOptions {
  /** The port to ask for. Default: 4321, or the next free one when 4321 is taken. */
  port?: number;
  /** "dev" (default) or "preview" (serves the last build, in the config's outDir). */
  mode?: DevMode;
  /** The command to run instead of the default one, as arguments; "{port}" is replaced by the port. */
  command?: readonly string[];
  /** How long to wait for the server to be ready (ms, default 30000). */
  timeoutMs?: number;
  /** Stops a start under way (the server started is ended). */
  signal?: AbortSignal;
  /** Extra environment for the server. */
  env?: Record<string, string>;
  /** The pid of the process the server must not outlive (see SUPERVISOR). Default: none, it runs until stopped. */
  ownerPid?: number;
}

/** Why a start failed; tools/devAnswers.ts words the hint for each (the core names no tool). */
export type StartFailure =
  | { reason: "needs-build" }
  | { reason: "no-preview" }
  | { reason: "port-taken"; port: number; holder: PortHolder | undefined }
  | { reason: "no-free-port" }
  | { reason: "never-ready"; pid: number; logTail: string[] }
  | { reason: "spawn-failed"; command: string }
  | { reason: "exited"; cause: ExitCause; exitCode: number | null; signal?: string; command: string; logTail: string[] }
  | { reason: "aborted"; command: string }
  | { reason: "timeout"; command: string; logTail: string[] };

/** What a dev command's log says about why it exited during start. */
export type ExitCause = "not-found" | "astro-running" | "missing-script" | "old-node" | "unknown";

/** The server a start found or started. */
interface RunningServer {
  pid: number;
  /** Undefined only for a server Astro backgrounded whose lock names no port. */
  port: number | undefined;
  url: string | undefined;
  mode: DevMode;
  /** Set when the dev command put the server in the background itself (found through .astro/dev.json). */
  startedBy?: StartedBy;
}

export type StartResult =
  | ({
      kind: "started";
      readyMs: number;
      /** The log, relative to the project root (not for a server Astro backgrounded). */
      log?: string;
      /** The port asked, when the server took another one. */
      movedFrom?: number;
      /** Why the port is not the default one. */
      portNote?: string;
    } & RunningServer)
  | ({
      kind: "already-running";
      uptimeS?: number;
      /** What was asked and differs from the running server ("port 4400", 'mode "preview"'): it was kept. */
      differences: string[];
    } & RunningServer)
  | ({ kind: "failed"; error: string } & StartFailure);

export async function startDevServer(site: Site, options: StartOptions = {}): Promise<StartResult> {
  const { project } = site;
  requireProc();
  const timeoutMs = options.timeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  const mode = options.mode ?? "dev";
  const planned = mode === "preview" && !options.command ? plannedPreview(site) : undefined;
  const servedBy = planned && !("kind" in planned) ? planned.command : undefined;
  const command = checkCommand(options.command ?? servedBy ?? DEFAULT_COMMANDS[mode]);
  return withLock(project, "dev-server", { waitMs: timeoutMs + 30_000 }, async () => {
    const state = inspect(project);
    if (state.kind === "running") return alreadyRunning(project, state.record, options, mode, timeoutMs);
    // A server Astro started (`astro dev` in a terminal, `--background`, or by itself for an agent).
    const astro = findAstroServer(project);
    if (astro.kind === "live") return astroAlreadyRunning(astro.server, options, mode);
    // A crash record, a stale pid file: start afresh (the old log is replaced below).
    if (state.kind !== "none") clearRecord(project);

    // No preview for a build vigie does not know how to serve (a server already running was answered above).
    if (planned && "kind" in planned) return planned;
    if (planned && !existsSync(planned.needs)) {
      const error = `preview needs a build: there is no ${relativePath(project, planned.needs)}/ folder`;
      return { kind: "failed", error, reason: "needs-build" };
    }
    // A dev server writes .astro/ as it starts: this process's astro sync, check or build writing it now ends first.
    if (mode === "dev") await untilAstroFilesWritten(project);
    // The default dev command runs with vigie's wrapped config: the server can then say what a change reaches.
    if (mode === "dev" && !options.command && devScriptTakesConfig(project)) command.push("--config", writeDevConfig(site));
    // Between the bind test and the server's own listen (seconds, for `astro preview`),
    // another process may take a free port: without an asked port, the next free one is tried.
    let lost: number | undefined;
    for (let attempt = 1; ; attempt++) {
      const chosen = await choosePort(options.port);
      if ("kind" in chosen) return chosen;
      const result = await spawnAndWait(project, {
        command,
        mode,
        port: chosen.port,
        timeoutMs,
        signal: options.signal,
        env: { VIGIE_DEV_OWNER: options.ownerPid ? String(options.ownerPid) : "", ...options.env },
      });
      if (options.port === undefined && attempt < PORT_RACE_ATTEMPTS && lostPortRace(result)) {
        lost = chosen.port;
        continue;
      }
      if (result.kind === "started") {
        if (lost !== undefined)
          result.portNote = `port ${lost} was taken by another process while the server started; ${chosen.port} was used`;
        else if (chosen.note) result.portNote = chosen.note;
      }
      return result;
    }
  });
}

/**
 * The preview as the site's serve plan says (servePlan.ts, the plan validate follows): vigie's
 * static server on a static build and its offline server of a Vercel or Netlify build output,
 * both run by the project's Node as outputRunner; `astro preview` (the project's preview script)
 * for an adapter with its own server. With the folder the server needs. For an adapter vigie
 * does not know, the plan is the dev server: no preview.
 */
function plannedPreview(site: Site): { command?: string[]; needs: string } | Failed {
  const plan = servePlan(site);
  if (plan.serve === "dev") {
    const error = `adapter ${plan.adapter ?? "?"} is not one vigie knows how to serve: its pages are checked on the dev server`;
    return { kind: "failed", error, reason: "no-preview" };
  }
  const command = plannedCommand(site.project, plan, PORT_PLACEHOLDER);
  return { ...(command ? { command } : {}), needs: plan.needs };
}

const PORT_RACE_ATTEMPTS = 3;

/** The server exited during start because its port was taken meanwhile. */
function lostPortRace(result: StartResult): boolean {
  return result.kind === "failed" && result.reason === "exited" && result.logTail.some((line) => /EADDRINUSE/.test(line));
}

function checkCommand(command: readonly string[]): string[] {
  if (!Array.isArray(command) || command.length === 0 || command.some((part) => typeof part !== "string" || part.includes("\0"))) {
    throw new VigieError(
      "the dev command must be a non-empty array of strings",
      'Give it as arguments, e.g. ["npm", "run", "dev", "--", "--port", "{port}"].',
    );
  }
  return [...command];
}

type Failed = Extract<StartResult, { kind: "failed" }>;

/** The asked port when free; without one, the first free port from 4321 on. */
async function choosePort(asked: number | undefined): Promise<{ port: number; note?: string } | Failed> {
  if (asked !== undefined) {
    if (await isPortFree(asked)) return { port: asked };
    const holder = portHolder(asked);
    return {
      kind: "failed",
      error: `port ${asked} is already held by ${describeHolder(holder)}`,
      reason: "port-taken",
      port: asked,
      holder,
    };
  }
  for (let port = DEFAULT_PORT; port < DEFAULT_PORT + FALLBACK_PORTS; port++) {
    if (await isPortFree(port)) {
      return port === DEFAULT_PORT
        ? { port }
        : { port, note: `port ${DEFAULT_PORT} is held by ${describeHolder(portHolder(DEFAULT_PORT))}; ${port} was used` };
    }
  }
  return { kind: "failed", error: `ports ${DEFAULT_PORT}-${DEFAULT_PORT + FALLBACK_PORTS - 1} are all taken`, reason: "no-free-port" };
}

/** What was asked that differs from the running server. */
function differencesFrom(options: StartOptions, mode: DevMode, running: { port?: number; mode: DevMode }): string[] {
  const differences: string[] = [];
  if (options.port !== undefined && options.port !== running.port) differences.push(`port ${options.port}`);
  if (mode !== running.mode) differences.push(`mode "${mode}"`);
  return differences;
}

async function alreadyRunning(
  project: Project,
  record: DevServerRecord,
  options: StartOptions,
  mode: DevMode,
  timeoutMs: number,
): Promise<StartResult> {
  let current = record;
  if (current.port === undefined) {
    // Started by a process that died before it saw the server ready: look again.
    const outcome = await waitUntilReady({
      logPath: files.log(project),
      pid: record.pid,
      pgid: record.pgid,
      startTime: record.startTime,
      probePort: record.requestedPort,
      deadline: record.startedAt + timeoutMs,
      signal: options.signal,
    });
    if (outcome.kind !== "ready") {
      const error = "a dev server of this project is running but was never seen ready";
      return { kind: "failed", error, reason: "never-ready", pid: record.pid, logTail: logTail(project) };
    }
    current = { ...record, port: outcome.port, url: outcome.url };
    writeRecord(project, current);
  }
  return {
    kind: "already-running",
    pid: current.pid,
    port: current.port,
    url: current.url,
    mode: current.mode,
    uptimeS: Math.round((Date.now() - current.startedAt) / 1000),
    differences: differencesFrom(options, mode, current),
  };
}

function astroAlreadyRunning(server: AstroServer, options: StartOptions, mode: DevMode): StartResult {
  return {
    kind: "already-running",
    pid: server.pid,
    port: server.port,
    url: server.url,
    mode: server.mode,
    startedBy: startedBy(server),
    ...(server.startedAt !== undefined ? { uptimeS: Math.round((Date.now() - server.startedAt) / 1000) } : {}),
    differences: differencesFrom(options, mode, server),
  };
}

/**
 * `astro dev logs` reads .astro/dev.log: make it the same file as our log (a hard link),
 * so that an agent's shell sees vigie's server there too. Best effort.
 */
function shareLogWithAstro(project: Project, mode: DevMode): void {
  const astroLog = astroLogPath(project, mode);
  try {
    mkdirSync(join(project.root, ".astro"), { recursive: true });
    rmSync(astroLog, { force: true });
    linkSync(files.log(project), astroLog);
  } catch {
    // another file system, or no right to write there: `astro dev logs` just has nothing
  }
}

interface Launch {
  command: string[];
  mode: DevMode;
  port: number;
  timeoutMs: number;
  signal?: AbortSignal;
  env?: Record<string, string>;
}

/** Spawns the supervisor with the command, in its own group, its output in the fresh log. */
function spawnSupervisor(project: Project, launch: Launch, argv: string[], exitFile: string): ChildProcess {
  const logFd = openFreshLog(project);
  shareLogWithAstro(project, launch.mode);
  try {
    return spawn(SUPERVISOR[0] as string, [...SUPERVISOR.slice(1), ...argv], {
      cwd: project.root,
      detached: true,
      stdio: ["ignore", logFd, logFd],
      env: {
        ...process.env,
        ...launch.env,
        NO_COLOR: "1",
        FORCE_COLOR: "0",
        ASTRO_TELEMETRY_DISABLED: "1",
        // Under an agent's environment markers (OPENCODE, CLAUDECODE, CODEX_THREAD_ID...),
        // Astro 7 backgrounds `astro dev` by itself: it spawns a detached server outside this
        // group and exits 0. These variables are what Astro gives its own background child:
        // the server then runs here, in our group, and still writes .astro/dev.json (marked
        // "background"), so `astro dev status`, `logs` and `stop` see it. Removing the markers
        // instead would mean keeping am-i-vibing's list of agents here.
        ASTRO_DEV_BACKGROUND: "1",
        ASTRO_PREVIEW_BACKGROUND: "1",
        VIGIE_DEV_EXIT_FILE: exitFile,
      },
    });
  } finally {
    closeSync(logFd);
  }
}

async function spawnAndWait(project: Project, launch: Launch): Promise<StartResult> {
  const argv = launch.command.map((part) => part.replaceAll(PORT_PLACEHOLDER, String(launch.port)));
  const exitFile = files.exit(project);
  rmSync(exitFile, { force: true });
  // Astro's own lock of a server that is gone (dead, or a zombie not yet reaped) would make it refuse to start.
  removeAstroLocks(project, (pid) => !isLive(readProcStat(pid)));
  const spawnedAt = Date.now();
  const child = spawnSupervisor(project, launch, argv, exitFile);
  const exited = once(child, "exit").catch(() => undefined);
  const spawnError = once(child, "error").then(([error]) => error as Error);
  const pid = child.pid;
  const stat = pid === undefined ? undefined : readProcStat(pid);
  if (pid === undefined || !stat) {
    const error = await Promise.race([spawnError, exited.then(() => undefined)]);
    const why = error?.message ?? "it exited at once";
    return {
      kind: "failed",
      error: `the dev command could not be started: ${why}`,
      reason: "spawn-failed",
      command: clip(argv.join(" "), 200),
    };
  }
  const record: DevServerRecord = {
    pid,
    pgid: pid,
    startTime: stat.startTime,
    bootId: bootId(),
    command: argv,
    mode: launch.mode,
    requestedPort: launch.port,
    startedAt: spawnedAt,
  };
  writeRecord(project, record);
  let outcome: ReadyOutcome;
  try {
    const deadline = spawnedAt + launch.timeoutMs;
    const watch = { logPath: files.log(project), pid, pgid: pid, startTime: stat.startTime, probePort: launch.port, deadline };
    outcome = await waitUntilReady({ ...watch, signal: launch.signal, exited });
  } catch (error) {
    await abandon(project, pid);
    throw error;
  } finally {
    // The server outlives this process: do not keep it waiting for the child.
    child.unref();
  }
  if (outcome.kind !== "ready") return notReady(project, launch, record, outcome.kind, child);
  const readyMs = Date.now() - spawnedAt;
  writeRecord(project, { ...record, port: outcome.port, url: outcome.url, readyMs });
  return {
    kind: "started",
    pid,
    port: outcome.port,
    url: outcome.url,
    mode: launch.mode,
    readyMs,
    log: relativePath(project, files.log(project)),
    ...(outcome.port !== launch.port ? { movedFrom: launch.port } : {}),
  };
}

/** A server that exited, timed out or was cancelled during start: adopted when Astro backgrounded it, else ended. */
async function notReady(
  project: Project,
  launch: Launch,
  record: DevServerRecord,
  outcome: "exited" | "timeout" | "aborted",
  child: ChildProcess,
): Promise<StartResult> {
  const tail = logTail(project);
  const command = clip(record.command.join(" "), 160);
  if (outcome === "exited") {
    const exit = readExit(project) ?? { exitCode: child.exitCode, signal: child.signalCode ?? undefined };
    const adopted = exit.exitCode === 0 ? backgroundedByAstro(project, record.startedAt) : undefined;
    if (adopted) {
      clearRecord(project);
      const { pid, port, url, mode } = adopted;
      return { kind: "started", pid, port, url, mode, startedBy: "astro (background)", readyMs: Date.now() - record.startedAt };
    }
    await abandon(project, record.pid);
    const how = `${exit.exitCode !== null ? ` with code ${exit.exitCode}` : ""}${exit.signal ? ` (${exit.signal})` : ""}`;
    const cause = exitCause(exit.exitCode, tail);
    return { kind: "failed", error: `the dev server exited during start${how}`, reason: "exited", cause, ...exit, command, logTail: tail };
  }
  await abandon(project, record.pid);
  if (outcome === "aborted") return { kind: "failed", error: "start cancelled; the server was stopped", reason: "aborted", command };
  const error = `the dev server was not ready within ${Math.round(launch.timeoutMs / 1000)} s; it was stopped`;
  return { kind: "failed", error, reason: "timeout", command, logTail: tail };
}

/**
 * A dev command that exits 0 at once may have left its server in the background (a
 * `astro dev --background` script): the live Astro server whose lock is newer than the spawn.
 */
function backgroundedByAstro(project: Project, spawnedAt: number): AstroServer | undefined {
  const astro = findAstroServer(project);
  if (astro.kind !== "live") return undefined;
  return (astro.server.startedAt ?? 0) >= spawnedAt - 1000 ? astro.server : undefined;
}

/** Ends what is left of a server that did not start, and forgets it. */
async function abandon(project: Project, pgid: number): Promise<void> {
  try {
    await endServer(project, pgid, 2000);
  } finally {
    clearRecord(project);
  }
}

/** Why the dev command exited, from its exit code and log. */
function exitCause(exitCode: number | null, tail: string[]): ExitCause {
  const text = tail.join("\n");
  if (exitCode === 127 || /not found/.test(text)) return "not-found";
  if (/Another astro \w+ server is already running/.test(text)) return "astro-running";
  if (/Missing script/.test(text)) return "missing-script";
  if (/Node\.js v?\d+.*(?:not supported|unsupported|required)|requires Node/i.test(text)) return "old-node";
  return "unknown";
}
