// The dev server: reuse the running one, or start one (and stop it at the end of the run).
import { clip } from "../../answer.ts";
import { devServerStatus, type StartResult, startDevServer, stopDevServer } from "../../devServer/index.ts";
import { onExit } from "../../process/exitHooks.ts";
import { signalGroup } from "../../process/kill.ts";
import type { Step, ValidateContext } from "./context.ts";
import type { Finding, StepRecord } from "./findings.ts";

type Failure = Extract<StartResult, { kind: "failed" }>;

const withoutSlash = (url: string) => url.replace(/\/$/, "");

/** What to do about a start that failed, for the finding's fix. */
function startFix(ctx: ValidateContext, failure: Failure): string {
  const byHand = "Run the dev command by hand and read its output.";
  switch (failure.reason) {
    case "port-taken":
      return `Port ${failure.port} is held by a server that is not ours: set another "dev.port" in vigie.config.json, or stop that program.`;
    case "no-free-port":
      return 'Set a free "dev.port" in vigie.config.json.';
    case "needs-build":
      return `Build the site first (${ctx.tool("build_run")}).`;
    case "no-preview":
      return 'Give "dev.command" in vigie.config.json the command that serves the build.';
    case "spawn-failed":
      return `Check "dev.command" in vigie.config.json. ${byHand}`;
    case "never-ready":
    case "timeout":
      return `Read ${ctx.tool("dev_logs")} for why it never got ready. ${byHand}`;
    case "exited":
      return failure.cause === "astro-running"
        ? `Another astro dev of this project runs: stop it (${ctx.tool("dev_stop")}), or validate it with --base-url.`
        : byHand;
    case "aborted":
      return "The run was cancelled: run it again.";
  }
}

export function startFailed(ctx: ValidateContext, failure: Failure): Finding {
  const tail = ("logTail" in failure ? failure.logTail : [])
    .slice(-3)
    .map((line) => clip(line, 200))
    .join(" | ");
  return {
    severity: "fail",
    tool: ctx.tool("dev_start"),
    message: `the dev server did not start: ${failure.error}${tail ? ` (log: ${tail})` : ""}`,
    fix: startFix(ctx, failure),
  };
}

/**
 * Should this process end before the run does (a closed pipe, an uncaught error, a signal),
 * the dev server it started goes with it. Returns what removes the hook.
 */
const endOnExit = (pgid: number) =>
  onExit(() => {
    signalGroup(pgid, "SIGTERM");
  });

export const devStep: Step = {
  name: "dev server",
  tool: "dev_start",
  after: [],
  skip: (ctx) => (ctx.options.baseUrl ? `validating ${ctx.options.baseUrl} instead` : undefined),
  async run(ctx) {
    const status = await devServerStatus(ctx.project);
    if (status.kind === "running" && status.url) {
      const url = withoutSlash(status.url);
      ctx.dev = { url, started: false };
      return { status: "ok", summary: `reusing the running server at ${url}` };
    }
    const { config, options } = ctx;
    const start = await startDevServer(ctx.site, {
      command: config.dev?.command,
      port: config.dev?.port,
      ...(config.dev?.readyTimeoutS ? { timeoutMs: config.dev.readyTimeoutS * 1000 } : {}),
      signal: options.signal,
    });
    if (start.kind === "failed") return { status: "fail", summary: start.error, findings: [startFailed(ctx, start)] };
    const started = start.kind === "started";
    const url = start.url === undefined ? undefined : withoutSlash(start.url);
    ctx.dev = { url, started, ...(started ? { removeExitHook: endOnExit(start.pid) } : {}) };
    const ready = start.kind === "started" && start.readyMs ? ` in ${start.readyMs} ms` : "";
    return { status: "ok", summary: `${started ? "started" : "already_running"} at ${url ?? "an unknown URL"}${ready}` };
  },
};

/** Stops the dev server this run started, and only that; the "stop" record, or undefined when it started none. */
export async function stopDev(ctx: ValidateContext): Promise<StepRecord | undefined> {
  ctx.dev?.removeExitHook?.();
  if (!ctx.dev?.started) return undefined;
  const stopped = await stopDevServer(ctx.project).catch((error: Error) => error);
  const record = { name: "stop", tool: ctx.tool("dev_stop"), ms: 0 };
  if (!(stopped instanceof Error) && stopped.kind === "stopped")
    return { ...record, status: "ok", summary: "stopped the dev server it started" };
  const why = stopped instanceof Error ? stopped.message : `it was no longer running (${stopped.why})`;
  return { ...record, status: "error", summary: `could not stop the dev server: ${why}` };
}
