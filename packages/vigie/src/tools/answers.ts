// What each tool answers, as zod shapes: the MCP face gives them as each tool's outputSchema,
// and the tests check every answer against them. Every field is optional (an error answer
// has error and hint instead of the tool's fields) and an answer may hold a field not listed
// here (the schemas stay open): what they pin is the type of each field an agent reads.
import type { Shape, Zod } from "./define.ts";

/** The fields any answer may have: an error with its hint, a cut answer, the arguments ignored. */
export function commonAnswerShape(z: Zod): Shape {
  return {
    // Set when the call failed, with the hint that says what to do.
    error: z.string(),
    hint: z.string(),
    argument: z.string(),
    // Arguments this tool does not know, left out.
    ignoredArguments: z.array(z.string()),
    // A cut answer: fullAnswer names the file with all of it.
    truncated: z.boolean(),
    fullAnswer: z.string(),
    report: z.string(),
    note: z.string(),
  };
}

const optional = (shape: Shape): Shape => Object.fromEntries(Object.entries(shape).map(([key, type]) => [key, type.optional()]));

const lines = (z: Zod) => z.array(z.string());
/** A finding listed in an answer: its text alone, or an object with its source file:line. */
const finding = (z: Zod) => z.union([z.string(), z.looseObject({ source: z.string().optional(), sourceUnknown: z.string().optional() })]);

const devMode = (z: Zod) => z.enum(["dev", "preview"]);

/** By canonical tool name (blog_dev_start...). */
export const ANSWER_SHAPES: Record<string, (z: Zod) => Shape> = {
  blog_dev_start: (z) => ({
    status: z.enum(["started", "already_running", "failed"]),
    pid: z.number().int(),
    port: z.number().int(),
    url: z.string(),
    mode: devMode(z),
    startedBy: z.string().describe("set when Astro, not vigie, runs the server"),
    readyMs: z.number(),
    uptimeS: z.number(),
    log: z.string(),
    movedFrom: z.number().int(),
    lifetime: z.string().describe("whether the server stops when this client ends, or runs until stopped"),
    logTail: lines(z),
  }),
  blog_dev_stop: (z) => ({
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
  blog_dev_status: (z) => ({
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
    exitCode: z.number().int().nullable(),
    logTail: lines(z),
  }),
  blog_dev_logs: (z) => ({
    lines: lines(z),
    total: z.number().int(),
    log: z.string(),
  }),
  blog_dev_http_get: (z) => ({
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
  blog_build_run: (z) => ({
    success: z.boolean(),
    durationS: z.number(),
    pageCount: z.number().int(),
    distBytes: z.number(),
    errors: z.array(z.looseObject({ message: z.string().optional(), file: z.string().optional(), line: z.number().optional() })),
    errorCount: z.number().int(),
    warnings: z.array(z.looseObject({})),
    warningCount: z.number().int(),
    outputTail: lines(z),
  }),
  blog_build_lint: (z) => ({
    success: z.boolean(),
    files: z.number().int(),
    content: z.looseObject({
      success: z.boolean().optional(),
      count: z.number().int().optional(),
      problems: z.array(z.looseObject({})).optional(),
    }),
    mermaid: z.looseObject({
      success: z.boolean().optional(),
      count: z.number().int().optional(),
      problems: z.array(z.looseObject({})).optional(),
    }),
  }),
  blog_build_check: (z) => ({
    success: z.boolean(),
    errors: z.number().int(),
    warnings: z.number().int(),
    hints: z.number().int(),
    files: z.number().int(),
    diagnostics: z.array(z.looseObject({})),
    durationS: z.number(),
  }),
  blog_build_links: (z) => ({
    success: z.boolean(),
    pages: z.number().int(),
    checked: z.number().int(),
    brokenCount: z.number().int(),
    broken: z.array(z.looseObject({ from: z.string().optional(), to: z.string().optional(), reason: z.string().optional() })),
    stale: z.string(),
  }),
  blog_browser_js_errors: (z) => ({
    path: z.string(),
    status: z.number().int().nullable(),
    summary: z.string().describe('"clean", or what broke the page'),
    errors: z.array(finding(z)).describe("uncaught errors and console errors, with their source file:line where known"),
    failedRequests: z.array(finding(z)),
    mermaid: z.array(z.looseObject({ diagram: z.number().optional(), message: z.string().optional() })),
    sourceUnknown: z.string(),
    warnings: lines(z),
    incomplete: z.string(),
  }),
  blog_browser_perf: (z) => ({
    path: z.string(),
    runs: z.number().int(),
    server: z.enum(["dev", "production"]),
    medians: z.record(z.string(), z.number()),
    budget: z.record(z.string(), z.looseObject({ value: z.number().optional(), max: z.number().optional(), pass: z.boolean().optional() })),
    verdict: z.enum(["pass", "over_budget"]),
  }),
  blog_browser_screenshot: (z) => ({
    file: z.string(),
    width: z.number().int(),
    height: z.number().int(),
    bytes: z.number().int(),
    pageFaults: z.string(),
  }),
  blog_browser_a11y: (z) => ({
    path: z.string(),
    violations: z.array(
      z.looseObject({
        id: z.string().optional(),
        impact: z.string().optional(),
        count: z.number().int().optional(),
        target: z.string().optional(),
      }),
    ),
    counts: z.record(z.string(), z.number().int()),
    passes: z.number().int(),
    sourceUnknown: z.string(),
  }),
  blog_browser_crawl: (z) => ({
    pages: z.number().int(),
    ok: z.number().int(),
    failing: z.array(
      z.looseObject({
        path: z.string().optional(),
        status: z.number().int().nullable().optional(),
        summary: z.string().optional(),
        first: z.string().optional(),
      }),
    ),
    moreFailing: z.number().int(),
    changed: z.looseObject({ chosen: z.number().int().optional(), of: z.number().int().optional(), why: z.string().optional() }),
    source: z.string(),
    ms: z.number(),
  }),
  blog_browser_visual_diff: (z) => ({
    path: z.string(),
    status: z.enum(["match", "changed", "baseline_created", "baseline_updated"]),
    baseline: z.string(),
    diffRatio: z.number(),
    diffPixels: z.number().int(),
    diffImage: z.string(),
  }),
};

/** The answer shape of a tool: the common fields and its own, all optional. */
export function answerShape(name: string, z: Zod): Shape {
  const own = ANSWER_SHAPES[name];
  if (!own) throw new Error(`no answer shape for ${name}`);
  return optional({ ...commonAnswerShape(z), ...own(z) });
}
