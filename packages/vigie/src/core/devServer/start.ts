// Starting: one server per project, in its own process group, recorded before it is
// waited for (so any process can find and stop it), answered with the port it really took.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, existsSync, linkSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { clip, VigieError } from "../answer.ts";
import { bootId, isLive, readProcStat, requireProc } from "../process/inspect.ts";
import { type Project, relativePath } from "../project.ts";
import { type AstroServer, astroLogPath, findAstroServer, removeAstroLocks } from "./astroLock.ts";
import { withLock } from "./lock.ts";
import { logTail, openFreshLog } from "./log.ts";
import { describeHolder, isPortFree, portHolder } from "./ports.ts";
import { type ReadyOutcome, waitUntilReady } from "./ready.ts";
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
 */
const SUPERVISOR = ["sh", "-c", '"$@"; echo $? > "$VIGIE_DEV_EXIT_FILE"', "vigie-dev-server"];

export interface StartOptions {
  /** The port to ask for. Default: 4321, or the next free one when 4321 is taken. */
  port?: number;
  /** "dev" (default) or "preview" (serves the last build in dist/). */
  mode?: DevMode;
  /** The command to run instead of the default one, as arguments; "{port}" is replaced by the port. */
  command?: readonly string[];
  /** How long to wait for the server to be ready (ms, default 30000). */
  timeoutMs?: number;
  /** Stops a start under way (the server started is ended). */
  signal?: AbortSignal;
  /** Extra environment for the server. */
  env?: Record<string, string>;
}

export type StartAnswer = { [key: string]: unknown; status: "started" | "already_running" | "failed" };

export async function startDevServer(project: Project, options: StartOptions = {}): Promise<StartAnswer> {
  requireProc();
  const timeoutMs = options.timeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  const mode = options.mode ?? "dev";
  const command = checkCommand(options.command ?? DEFAULT_COMMANDS[mode]);
  return withLock(project, "dev-server", { waitMs: timeoutMs + 30_000 }, async () => {
    const state = inspect(project);
    if (state.kind === "running") return alreadyRunning(project, state.record, options, mode, timeoutMs);
    // A server Astro started (`astro dev` in a terminal, `--background`, or by itself for an agent).
    const astro = findAstroServer(project);
    if (astro.kind === "live") return astroAlreadyRunning(astro.server, options, mode);
    // A crash record, a stale pid file: start afresh (the old log is replaced below).
    if (state.kind !== "none") clearRecord(project);

    if (mode === "preview" && !options.command && !existsSync(join(project.root, "dist"))) {
      return failed("preview needs a build: there is no dist/ folder", 'Run blog_build_run first, or start with mode "dev".');
    }
    const chosen = await choosePort(options.port);
    if ("status" in chosen) return chosen;
    const answer = await spawnAndWait(project, { command, mode, port: chosen.port, timeoutMs, signal: options.signal, env: options.env });
    if (chosen.note && answer.status === "started") answer.note = chosen.note;
    return answer;
  });
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

function failed(error: string, hint: string, context: Record<string, unknown> = {}): StartAnswer {
  return { status: "failed", error, hint, ...context };
}

/** The asked port when free; without one, the first free port from 4321 on. */
async function choosePort(asked: number | undefined): Promise<{ port: number; note?: string } | StartAnswer> {
  if (asked !== undefined) {
    if (await isPortFree(asked)) return { port: asked };
    const holder = portHolder(asked);
    return failed(
      `port ${asked} is already held by ${describeHolder(holder)}`,
      `That server is not ours. Pass another "port" (e.g. ${asked + 1}), or stop that program.`,
      {
        port: asked,
        holder,
      },
    );
  }
  for (let port = DEFAULT_PORT; port < DEFAULT_PORT + FALLBACK_PORTS; port++) {
    if (await isPortFree(port)) {
      return port === DEFAULT_PORT
        ? { port }
        : { port, note: `port ${DEFAULT_PORT} is held by ${describeHolder(portHolder(DEFAULT_PORT))}; ${port} was used` };
    }
  }
  return failed(`ports ${DEFAULT_PORT}-${DEFAULT_PORT + FALLBACK_PORTS - 1} are all taken`, 'Pass a free "port".');
}

async function alreadyRunning(
  project: Project,
  record: DevServerRecord,
  options: StartOptions,
  mode: DevMode,
  timeoutMs: number,
): Promise<StartAnswer> {
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
      return failed(
        "a dev server of this project is running but was never seen ready",
        "Call blog_dev_logs, then blog_dev_stop and blog_dev_start.",
        {
          pid: record.pid,
          logTail: logTail(project),
        },
      );
    }
    current = { ...record, port: outcome.port, url: outcome.url };
    writeRecord(project, current);
  }
  const answer: StartAnswer = {
    status: "already_running",
    pid: current.pid,
    port: current.port,
    url: current.url,
    mode: current.mode,
    uptimeS: Math.round((Date.now() - current.startedAt) / 1000),
  };
  const differences: string[] = [];
  if (options.port !== undefined && options.port !== current.port) differences.push(`port ${options.port}`);
  if (mode !== current.mode) differences.push(`mode "${mode}"`);
  if (differences.length > 0)
    answer.hint = `The running server was kept; for ${differences.join(" and ")}, call blog_dev_stop, then blog_dev_start.`;
  return answer;
}

function astroAlreadyRunning(server: AstroServer, options: StartOptions, mode: DevMode): StartAnswer {
  const answer: StartAnswer = {
    status: "already_running",
    pid: server.pid,
    port: server.port,
    url: server.url,
    mode: server.mode,
    startedBy: server.background ? "astro (background)" : "astro",
  };
  if (server.startedAt !== undefined) answer.uptimeS = Math.round((Date.now() - server.startedAt) / 1000);
  const differences: string[] = [];
  if (options.port !== undefined && options.port !== server.port) differences.push(`port ${options.port}`);
  if (mode !== server.mode) differences.push(`mode "${mode}"`);
  answer.hint =
    differences.length > 0
      ? `A server started outside vigie runs and was kept; for ${differences.join(" and ")}, call blog_dev_stop (it stops it), then blog_dev_start.`
      : "A server started outside vigie (astro dev) runs: the other tools use it; blog_dev_stop stops it.";
  return answer;
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

async function spawnAndWait(project: Project, launch: Launch): Promise<StartAnswer> {
  const argv = launch.command.map((part) => part.replaceAll(PORT_PLACEHOLDER, String(launch.port)));
  const exitFile = files.exit(project);
  rmSync(exitFile, { force: true });
  // Astro's own lock of a server that is gone (dead, or a zombie not yet reaped) would make it refuse to start.
  removeAstroLocks(project, (pid) => !isLive(readProcStat(pid)));
  const logFd = openFreshLog(project);
  shareLogWithAstro(project, launch.mode);
  const spawnedAt = Date.now();
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(SUPERVISOR[0] as string, [...SUPERVISOR.slice(1), ...argv], {
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
  const exited = once(child, "exit").catch(() => undefined);
  const spawnError = once(child, "error").then(([error]) => error as Error);
  const pid = child.pid;
  const stat = pid === undefined ? undefined : readProcStat(pid);
  if (pid === undefined || !stat) {
    const error = await Promise.race([spawnError, exited.then(() => undefined)]);
    return failed(
      `the dev command could not be started: ${error?.message ?? "it exited at once"}`,
      "Check that sh and the command exist.",
      {
        command: clip(argv.join(" "), 200),
      },
    );
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
    outcome = await waitUntilReady({
      logPath: files.log(project),
      pid,
      pgid: pid,
      startTime: stat.startTime,
      probePort: launch.port,
      deadline: spawnedAt + launch.timeoutMs,
      signal: launch.signal,
      exited,
    });
  } catch (error) {
    await abandon(project, pid);
    throw error;
  } finally {
    // The server outlives this process: do not keep it waiting for the child.
    child.unref();
  }
  if (outcome.kind === "ready") {
    const ready: DevServerRecord = { ...record, port: outcome.port, url: outcome.url, readyMs: Date.now() - spawnedAt };
    writeRecord(project, ready);
    const answer: StartAnswer = {
      status: "started",
      pid,
      port: outcome.port,
      url: outcome.url,
      mode: launch.mode,
      readyMs: ready.readyMs,
      log: relativePath(project, files.log(project)),
    };
    if (outcome.port !== launch.port) answer.movedFrom = launch.port;
    return answer;
  }

  const tail = logTail(project);
  const command = clip(argv.join(" "), 160);
  if (outcome.kind === "exited") {
    const exit = readExit(project) ?? { exitCode: child.exitCode, signal: child.signalCode ?? undefined };
    const adopted = exit.exitCode === 0 ? backgroundedByAstro(project, spawnedAt) : undefined;
    if (adopted) {
      clearRecord(project);
      return {
        status: "started",
        pid: adopted.pid,
        port: adopted.port,
        url: adopted.url,
        mode: adopted.mode,
        startedBy: "astro (background)",
        readyMs: Date.now() - spawnedAt,
        note: "the dev command put the server in the background itself; it was found through .astro/dev.json, and blog_dev_stop stops it",
      };
    }
    await abandon(project, pid);
    return failed(
      `the dev server exited during start${exit.exitCode !== null ? ` with code ${exit.exitCode}` : ""}${exit.signal ? ` (${exit.signal})` : ""}`,
      exitHint(exit.exitCode, tail),
      {
        ...exit,
        command,
        logTail: tail,
      },
    );
  }
  await abandon(project, pid);
  if (outcome.kind === "aborted")
    return failed("start cancelled; the server was stopped", "Call blog_dev_start again when needed.", { command });
  return failed(
    `the dev server was not ready within ${Math.round(launch.timeoutMs / 1000)} s; it was stopped`,
    'Read the log tail; a slow machine may need a longer "timeoutMs".',
    {
      command,
      logTail: tail,
    },
  );
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

function exitHint(exitCode: number | null, tail: string[]): string {
  const text = tail.join("\n");
  if (exitCode === 127 || /not found/.test(text))
    return "The command was not found: check that npm is on PATH and that package.json has the script.";
  if (/Another astro \w+ server is already running/.test(text)) {
    return 'Astro says another server of this project runs, started outside vigie (its URL and PID are in the log tail): use it (blog_dev_http_get with its "port"), or stop it, then start again.';
  }
  if (/Missing script/.test(text)) return "package.json has no such script: add it, or pass another command.";
  if (/Node\.js v?\d+.*(?:not supported|unsupported|required)|requires Node/i.test(text))
    return "Astro needs a newer Node: use the project's Node (node_modules/.bin/node) on PATH.";
  return 'Read the log tail (blog_dev_logs with level "error" shows the whole error), fix the cause, then call blog_dev_start again.';
}
