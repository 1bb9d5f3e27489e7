// The dev-server core's typed results as the blog_dev_* tools answer them: the field names
// agents know (status "started", running, stopped...) and the hints that name the tool to
// call next. Tool names are written canonically (blog_dev_start); runTool applies the prefix.
// tools/dev.ts imports this module when a tool runs, with the core module it calls.

import type { Answer } from "../core/answer.ts";
import type { DevChangesResult } from "../core/checks/devChanges.ts";
import type { HttpGetResult } from "../core/devServer/http.ts";
import type { LogsAnswer } from "../core/devServer/log.ts";
import type { ExitCause, StartResult } from "../core/devServer/start.ts";
import { type Health, PROBE_TIMEOUT_MS, type StatusResult } from "../core/devServer/status.ts";
import type { StopResult } from "../core/devServer/stop.ts";
import type { ToolOutput } from "./define.ts";

const EXIT_HINTS: Record<ExitCause, string> = {
  "not-found": "The command was not found: check that npm is on PATH and that package.json has the script.",
  "astro-running":
    'Astro says another server of this project runs, started outside vigie (its URL and PID are in the log tail): use it (blog_dev_http_get with its "port"), or stop it, then start again.',
  "missing-script": "package.json has no such script: add it, or pass another command.",
  "old-node": "Astro needs a newer Node: use the project's Node (node_modules/.bin/node) on PATH.",
  unknown: 'Read the log tail (blog_dev_logs with level "error" shows the whole error), fix the cause, then call blog_dev_start again.',
};

type Failed = Extract<StartResult, { kind: "failed" }>;

function failureHint(failure: Failed): string {
  switch (failure.reason) {
    case "needs-build":
      return 'Run blog_build_run first, or start with mode "dev".';
    case "no-preview":
      return 'Start with mode "dev", or pass the "command" that serves the build.';
    case "port-taken":
      return `That server is not ours. Pass another "port" (e.g. ${failure.port + 1}), or stop that program.`;
    case "no-free-port":
      return 'Pass a free "port".';
    case "never-ready":
      return "Call blog_dev_logs, then blog_dev_stop and blog_dev_start.";
    case "spawn-failed":
      return "Check that sh and the command exist.";
    case "exited":
      return EXIT_HINTS[failure.cause];
    case "aborted":
      return "Call blog_dev_start again when needed.";
    case "timeout":
      return 'Read the log tail; a slow machine may need a longer "timeoutMs".';
  }
}

function failedAnswer(failure: Failed): Answer {
  const { kind: _kind, reason: _reason, error, ...context } = failure;
  if ("cause" in context) delete (context as { cause?: ExitCause }).cause;
  return { status: "failed", error, hint: failureHint(failure), ...context };
}

/** blog_dev_start's answer, and the server's log it points at. */
export function startAnswer(result: StartResult): ToolOutput {
  if (result.kind === "failed") return { answer: failedAnswer(result) };
  const { pid, port, url, mode, startedBy } = result;
  if (result.kind === "started") {
    const answer: Answer = { status: "started", pid, port, url, mode, ...(startedBy ? { startedBy } : {}), readyMs: result.readyMs };
    if (result.movedFrom !== undefined) answer.movedFrom = result.movedFrom;
    if (startedBy) {
      answer.note =
        "the dev command put the server in the background itself; it was found through .astro/dev.json, and blog_dev_stop stops it";
    }
    if (result.portNote) answer.note = result.portNote;
    return { answer, files: { log: result.log } };
  }
  const answer: Answer = { status: "already_running", pid, port, url, mode, ...(startedBy ? { startedBy } : {}) };
  if (result.uptimeS !== undefined) answer.uptimeS = result.uptimeS;
  const wanted = result.differences.join(" and ");
  if (startedBy) {
    answer.hint = wanted
      ? `A server started outside vigie runs and was kept; for ${wanted}, call blog_dev_stop (it stops it), then blog_dev_start.`
      : "A server started outside vigie (astro dev) runs: the other tools use it; blog_dev_stop stops it.";
  } else if (wanted) {
    answer.hint = `The running server was kept; for ${wanted}, call blog_dev_stop, then blog_dev_start.`;
  }
  return { answer };
}

/** blog_dev_stop's answer. */
export function stopAnswer(result: StopResult): Answer {
  if (result.kind === "stopped") {
    const { pid, port, ms, astro } = result;
    const answer: Answer = { stopped: true, pid, port, ...(astro ? { startedBy: astro.startedBy } : {}), ms };
    if (astro) {
      answer.note = `a server started outside vigie, stopped as \`astro ${astro.mode} stop\` would; its lock .astro/${astro.mode}.json was removed`;
    }
    if (result.forcedAfterMs !== undefined) answer.forced = `SIGKILL after ${result.forcedAfterMs} ms of SIGTERM`;
    if (result.portHeldBy !== undefined) {
      answer.portFree = false;
      answer.hint = `Port ${port} is still held by ${result.portHeldBy}${astro ? "" : ", which is not of this server's process group"}.`;
    }
    return answer;
  }
  switch (result.why) {
    case "none":
      return { stopped: false, reason: "no dev server is recorded for this project", hint: "Nothing to stop; blog_dev_start starts one." };
    case "stale":
      return {
        stopped: false,
        reason: `stale state cleaned, nothing signalled: ${result.reason}`,
        hint: "No server of ours was running; blog_dev_start starts one.",
      };
    case "stopped-outside":
      return {
        stopped: false,
        reason: `the server (pid ${result.pid}) had already been stopped from outside, by ${result.signal}`,
        hint: "Nothing to stop; blog_dev_start starts it again.",
      };
    case "exited": {
      const { exit } = result;
      const how = exit ? ` with code ${exit.exitCode}${exit.signal ? ` (${exit.signal})` : ""}` : "";
      return {
        stopped: false,
        reason: `the server (pid ${result.pid}) had already exited${how}`,
        logTail: result.logTail,
        hint: 'Read blog_dev_logs with level "error" for why; blog_dev_start starts it again.',
      };
    }
  }
}

/** The hint for a running server that does not answer GET / well; undefined when it does. */
function healthHint(health: Health, port: number | undefined): string | undefined {
  if (health.httpStatus !== undefined) return `GET / answers ${health.httpStatus}: blog_dev_http_get path "/" shows the error.`;
  if (health.healthy) return undefined;
  switch (health.problem) {
    case "timeout":
      return `GET / did not answer within ${PROBE_TIMEOUT_MS} ms: the first request after a start compiles the page; retry in a few seconds.`;
    case "refused":
      return `Nothing answers on port ${port} although the processes run: blog_dev_logs, then blog_dev_stop and blog_dev_start.`;
    case "no-port":
      return "Astro's lock names no port; run `astro dev status`.";
    default:
      return undefined;
  }
}

/** blog_dev_status's answer. */
export function statusAnswer(result: StatusResult): Answer {
  switch (result.kind) {
    case "none":
      return { running: false, hint: "No dev server recorded; blog_dev_start starts one." };
    case "stale":
      return { running: false, stale: result.reason, hint: "blog_dev_start cleans this state and starts the server." };
    case "stopped-outside":
      return {
        running: false,
        pid: result.pid,
        port: result.port,
        stopped: `from outside, by ${result.signal} (astro dev stop, Ctrl-C or another program), not a crash`,
        hint: "blog_dev_start starts it again.",
      };
    case "crashed": {
      const { pid, port, exitCode, signal, logTail } = result;
      const crashed = { exitCode, ...(signal ? { signal } : {}), logTail };
      return {
        running: false,
        pid,
        port,
        crashed,
        hint: 'The server died. blog_dev_logs with level "error" shows why; fix it, then blog_dev_start.',
      };
    }
    case "starting": {
      const { pid, mode, uptimeS } = result;
      const hint = "The server is starting (or its start was interrupted); blog_dev_start waits for it.";
      return { running: true, pid, mode, uptimeS, healthy: false, starting: true, hint };
    }
    case "running":
      return runningAnswer(result);
  }
}

function runningAnswer(result: Extract<StatusResult, { kind: "running" }>): Answer {
  const { pid, mode, startedBy, uptimeS, port, url, healthy, httpStatus } = result;
  const answer: Answer = { running: true, pid, mode, ...(startedBy ? { startedBy } : {}) };
  if (uptimeS !== undefined) answer.uptimeS = uptimeS;
  if (port !== undefined) Object.assign(answer, { port, url });
  if (result.supervisorGone) answer.note = "the supervisor is gone but the server's processes still run; blog_dev_stop ends them";
  answer.healthy = healthy;
  if (httpStatus !== undefined) answer.httpStatus = httpStatus;
  const hint = healthHint(result, port);
  if (hint) answer.hint = hint;
  return answer;
}

/** blog_dev_http_get's answer: the result, and for a 4xx or 5xx what to do. */
export function httpGetAnswer(result: HttpGetResult): Answer {
  if (result.status < 400) return { ...result };
  let hint = `The server answered ${result.status}.`;
  if (result.errorFile)
    hint = 'Fix the source at errorFile; the dev server reloads by itself. blog_dev_logs level "error" has the whole trace.';
  else if (result.status === 404) hint = "No page at this path: check the route and the slug.";
  else if (result.status >= 500) hint = 'The server failed to render it: blog_dev_logs with level "error" shows why.';
  return { ...result, hint };
}

/**
 * blog_dev_logs's answer: the lines (the renderer keeps the last that fit; the report then
 * has all the lines asked for), and the log; a missing log says which tool writes it.
 */
export function logsAnswer(result: LogsAnswer): ToolOutput {
  const { missing, log, ...answer } = result;
  return {
    answer: missing ? { ...answer, hint: "No log yet: blog_dev_start writes it." } : answer,
    files: { log },
    full: { name: "dev-server-logs.txt", content: `${result.lines.join("\n")}\n` },
  };
}

/** blog_dev_changes: what changed, where it reached, and per page the faults new and resolved; nothing said that is empty. */
export function changesAnswer(result: DevChangesResult): Answer {
  if (result.baseline) {
    const { pages, faults, ms } = result.baseline;
    return { baseline: { pages, faults, ms }, note: "baseline taken: edit, then call again" };
  }
  if (result.changed.length === 0 && result.checked.length === 0) return { changed: [], note: "nothing changed since the last look" };
  const { applied } = result;
  const pages = result.checked
    .filter((page) => page.new.length || page.resolved.length || page.still)
    .map((page) => ({
      path: page.path,
      ...(page.new.length ? { new: page.new } : {}),
      ...(page.resolved.length ? { resolved: page.resolved } : {}),
      ...(page.still ? { still: page.still } : {}),
    }));
  const clean = result.checked.filter((page) => !page.new.length && !page.resolved.length && !page.still).map((page) => page.path);
  return {
    changed: result.changed,
    ...(applied
      ? { applied: applied.kind === "error" ? `error: ${applied.message ?? ""}${applied.file ? ` (${applied.file})` : ""}` : applied.kind }
      : {}),
    ...(result.unused.length ? { unused: result.unused } : {}),
    ...(result.instead ? { note: result.instead } : {}),
    reached: result.reached.length,
    ...(pages.length ? { pages } : {}),
    ...(clean.length ? { clean } : {}),
    ...(result.pending.length ? { pending: result.pending } : {}),
    ...(result.removed?.length
      ? { removed: result.removed.map(({ path, file, links }) => ({ path, file, ...(links.length ? { linkedFrom: links } : {}) })) }
      : {}),
    ...(result.types && "unavailable" in result.types ? { typesUnavailable: result.types.unavailable } : {}),
    ...(result.types && "errors" in result.types && result.types.errors.length ? { types: result.types.errors } : {}),
    ms: result.ms,
  };
}
