// Each run imports the core module it needs when it is called: a call of one tool (`vigie dev
// status`) loads that tool's code, not the whole dev-server core. The core returns typed
// results; devAnswers.ts words them, and runTool gives a StepError the hint that names the tool to call.
import { CHANGED_PAGE_LIMIT } from "../core/changes/limit.ts";
import { finding, lines } from "./answers.ts";
import { defineTool, portArgument, type ToolDefinition, type Zod } from "./define.ts";

const answers = () => import("./devAnswers.ts");

const devMode = (z: Zod) => z.enum(["dev", "preview"]);
/** A log's tail: its last lines are kept, each clipped to LOG_LINE characters. */
const LOG_TAIL = { show: 12, keep: "last" } as const;
const LOG_LINE = 200;

const start = defineTool({
  exportName: "start",
  group: "dev",
  title: "Start the dev server",
  readOnly: false,
  idempotent: true,
  description:
    "Start the dev server in the background (idempotent) and wait until it serves. Answers status (started/already_running/failed), pid, real port, url; on failure why, and the log tail.",
  args: (z) => ({
    port: portArgument(z, "default 4321, else the next free one"),
    mode: z.enum(["dev", "preview"]).describe('"preview": serve the last build').optional(),
    timeoutMs: z.number().int().min(1000).max(300_000).describe("default 30000").optional(),
  }),
  answer: (z) => ({
    status: z.enum(["started", "already_running", "failed"]),
    pid: z.number().int(),
    port: z.number().int(),
    url: z.string(),
    mode: devMode(z),
    startedBy: z.string().describe("set when Astro, not vigie, runs the server"),
    readyMs: z.number(),
    uptimeS: z.number(),
    movedFrom: z.number().int(),
    lifetime: z.string().describe("whether the server stops when this client ends, or runs until stopped"),
    logTail: lines(z),
  }),
  lists: { logTail: LOG_TAIL },
  limits: { logTail: LOG_LINE },
  run: async (args, context) => {
    const { loadConfig } = await import("../core/config.ts");
    const { startDevServer } = await import("../core/devServer/start.ts");
    const { readSite } = await import("../core/astro/site.ts");
    // vigie.config.json may name the dev command and the port; the arguments win.
    const config = loadConfig(context.project);
    const mode = args.mode ?? "dev";
    const result = await startDevServer(readSite(context.project), {
      ...(mode === "dev" && config.dev?.command ? { command: config.dev.command } : {}),
      ...(config.dev?.port !== undefined ? { port: config.dev.port } : {}),
      ...args,
      signal: context.signal,
      // Started for a client (MCP, OpenCode): it must not outlive that process.
      ...(context.session ? { ownerPid: process.pid } : {}),
    });
    const output = (await answers()).startAnswer(result);
    if (result.kind === "failed") return output;
    const { session } = context;
    if (session && result.kind === "started") session.started(context.project, result.pid);
    output.answer.lifetime = session?.owns(context.project, result.pid)
      ? `stopped when ${session.name} ends (or by blog_dev_stop)`
      : session
        ? `started before ${session.name}: left running when it ends (blog_dev_stop stops it)`
        : "runs until blog_dev_stop";
    return output;
  },
});

const stop = defineTool({
  exportName: "stop",
  group: "dev",
  title: "Stop the dev server",
  readOnly: false,
  idempotent: true,
  description: "Stop the dev server's whole process tree and free its port. Answers stopped, pid, ms, or why nothing was stopped.",
  args: (z) => ({
    graceMs: z.number().int().min(0).max(60_000).describe("TERM to KILL delay, default 5000").optional(),
  }),
  answer: (z) => ({
    stopped: z.boolean(),
    pid: z.number().int(),
    port: z.number().int(),
    ms: z.number(),
    startedBy: z.string(),
    forced: z.string(),
    portFree: z.boolean(),
    reason: z.string().describe("why nothing was stopped"),
    logTail: lines(z),
  }),
  // A server that exited: its log's tail (twelve lines of a usual length) in about 1 KB.
  budget: 1280,
  lists: { logTail: LOG_TAIL },
  limits: { logTail: LOG_LINE },
  run: async (args, context) => {
    const result = await (await import("../core/devServer/stop.ts")).stopDevServer(context.project, args);
    if (result.kind === "stopped") context.session?.forget(context.project);
    return { answer: (await answers()).stopAnswer(result) };
  },
});

const status = defineTool({
  exportName: "status",
  group: "dev",
  title: "Dev server status",
  readOnly: true,
  idempotent: true,
  description:
    "Is the dev server running and answering? Answers running, healthy, pid, port, url, uptimeS; for a crashed server its exit code and log tail.",
  args: () => ({}),
  answer: (z) => ({
    running: z.boolean(),
    healthy: z.boolean(),
    starting: z.boolean(),
    pid: z.number().int(),
    port: z.number().int(),
    url: z.string(),
    mode: devMode(z),
    uptimeS: z.number(),
    startedBy: z.string(),
    stale: z.string(),
    stopped: z.string().describe("how a server stopped from outside ended"),
    crashed: z.looseObject({ exitCode: z.number().int().nullable().optional(), logTail: lines(z).optional() }),
  }),
  // A crashed server: its log's tail (twelve lines of a usual length) in about 1 KB.
  budget: 1280,
  lists: { "crashed.logTail": LOG_TAIL },
  limits: { "crashed.logTail": LOG_LINE },
  run: async (_args, context) => {
    const result = await (await import("../core/devServer/status.ts")).devServerStatus(context.project);
    return { answer: (await answers()).statusAnswer(result) };
  },
});

const logs = defineTool({
  exportName: "logs",
  group: "dev",
  title: "Dev server logs",
  readOnly: true,
  idempotent: false,
  description:
    "The dev server's log without colours: last lines, errors with their stacks, or lines with some text. Answers lines and total.",
  args: (z) => ({
    lines: z.number().int().min(1).max(500).describe("default 50").optional(),
    filter: z.string().min(1).max(200).describe("text the lines contain").optional(),
    level: z.enum(["error", "warn"]).describe("errors (warn: and warnings)").optional(),
    since: z.enum(["last"]).describe("only lines new since the previous call").optional(),
  }),
  answer: (z) => ({
    lines: lines(z),
    total: z.number().int(),
  }),
  // The lines asked for (500 at most) as many as the budget takes, the newest.
  lists: { lines: { show: 500, keep: "last" } },
  limits: { lines: 240 },
  run: async (args, context) => {
    const result = await (await import("../core/devServer/log.ts")).readDevLogs(context.project, args);
    return (await answers()).logsAnswer(result);
  },
});

const http_get = defineTool({
  exportName: "http_get",
  group: "dev",
  title: "GET a local page",
  readOnly: true,
  idempotent: true,
  description:
    "GET a path on the local dev server to check a route without a browser. Answers status, contentType, bodyLength, title, redirectedTo, bodyExcerpt; on Astro's error page the error and its logged message.",
  args: (z) => ({
    path: z.string().min(1).describe('starts with "/", e.g. "/en/"'),
    port: portArgument(z, "default: the dev server's"),
    timeoutMs: z.number().int().min(100).max(120_000).describe("default 10000").optional(),
  }),
  answer: (z) => ({
    status: z.number().int(),
    contentType: z.string(),
    bodyLength: z.number().int(),
    redirectedTo: z.string(),
    title: z.string(),
    errorName: z.string(),
    errorMessage: z.string(),
    errorFile: z.string(),
    bodyExcerpt: z.string(),
    serverError: z.string(),
    ms: z.number(),
  }),
  limits: { title: 200, redirectedTo: 300, errorMessage: 400, serverError: 400 },
  run: async (args, context) => {
    // The route check validate's critical routes run.
    const result = await (await import("../core/checks/routes.ts")).getRoute(context.project, { ...args, signal: context.signal });
    return { answer: (await answers()).httpGetAnswer(result) };
  },
});

const changes = defineTool({
  exportName: "changes",
  group: "dev",
  title: "What an edit changed",
  readOnly: true,
  idempotent: false,
  description:
    "After an edit: files changed since the last look, pages they reach (module graph), whether it applied (hmr, full-reload, error file:line), per page faults new/resolved/still as js_errors, type errors of changed files. First call takes the baseline.",
  args: (z) => ({
    pages: z.array(z.string().max(300)).max(50).describe("paths to check, of those reached").optional(),
    limit: z.number().int().min(1).max(50).describe(`pages per call, default ${CHANGED_PAGE_LIMIT}`).optional(),
    reset: z.boolean().describe("take a new baseline").optional(),
  }),
  answer: (z) => ({
    baseline: z.looseObject({}),
    changed: lines(z),
    applied: z.string(),
    unused: lines(z),
    reached: z.number().int(),
    pages: z.array(
      z.looseObject({
        path: z.string().optional(),
        new: z.array(finding(z)).optional(),
        resolved: z.array(finding(z)).optional(),
        still: z.number().int().optional(),
      }),
    ),
    clean: lines(z),
    pending: lines(z).describe("reached, not checked"),
    types: z.array(finding(z)),
    typesUnavailable: z.string(),
    ms: z.number(),
  }),
  lists: { changed: 8, pages: CHANGED_PAGE_LIMIT, clean: 10, pending: 8, unused: 5, types: 5 },
  run: async (args, context) => {
    const { loadConfig } = await import("../core/config.ts");
    const { readSite } = await import("../core/astro/site.ts");
    const { sharedSession } = await import("../core/browser/session/session.ts");
    const { devChanges } = await import("../core/checks/devChanges.ts");
    const result = await devChanges(readSite(context.project), {
      session: sharedSession(),
      config: loadConfig(context.project),
      ...args,
      ...(context.signal ? { signal: context.signal } : {}),
    });
    return { answer: (await answers()).changesAnswer(result) };
  },
});

/** blog_dev_*: the dev-server lifecycle, and what an edit changed on it. */
export const devTools: ToolDefinition[] = [start, stop, status, logs, http_get, changes] as ToolDefinition[];
