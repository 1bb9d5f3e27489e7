// vigie.config.json at the project root: budgets, critical routes, which checks run,
// the dev and build commands, and the findings the site accepts (with the reason).
// Every field is optional; errors name the field.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ACTIONS_ACCEPTED, type Action, parseActions } from "./actions.ts";
import { VigieError } from "./answer.ts";
import type { Project } from "./project.ts";

const command = z.array(z.string().min(1)).min(1);
const ms = z.number().positive();

export const budgetsSchema = z.strictObject({
  ttfbMs: ms.optional(),
  domInteractiveMs: ms.optional(),
  domContentLoadedMs: ms.optional(),
  loadMs: ms.optional(),
  lcpMs: ms.optional(),
  cls: z.number().min(0).optional(),
  transferKb: z.number().positive().optional(),
  requests: z.number().int().positive().optional(),
  jsKb: z.number().positive().optional(),
});
export type Budgets = z.infer<typeof budgetsSchema>;

/** A finding the site accepts: a rule (on one selector, on one page, when given), with the reason. */
export const acceptSchema = z.strictObject({
  rule: z.string({ error: "rule is required: the rule id of a finding, e.g. label-content-name-mismatch" }).min(1),
  selector: z.string().min(1, "selector may not be empty: leave it out to accept the rule everywhere").optional(),
  page: z.string().startsWith("/", "page is a site path starting with /, or a prefix ending in *, e.g. /404.html or /fr/*").optional(),
  reason: z
    .string({ error: "reason is required: say why this finding is accepted" })
    .trim()
    .min(1, "reason may not be empty: say why this finding is accepted"),
});
export type AcceptRule = z.infer<typeof acceptSchema>;

export const DEFAULT_BUDGETS: Budgets = { loadMs: 200 };

/** A saved login's file: under .opencode/, named state*.json, which `vigie init` git-ignores. */
const stateFile = z
  .string()
  .regex(/^\.opencode\/state[\w.-]*\.json$/, "a file .opencode/state*.json (git-ignored), e.g. .opencode/state.json");

/** A flow's steps: actions, checked as the tools check their `actions` (the first bad one named, with what is accepted). */
const flowActions = z
  .array(z.unknown())
  .min(1, "a flow has at least one step")
  .transform((raw, ctx): Action[] => {
    try {
      return parseActions(raw);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message.replace(/^actions/, "steps") });
      return z.NEVER;
    }
  });

/** A named list of a reader's actions on one page, run by `vigie validate` after the crawl. */
export const flowSchema = z.strictObject({
  name: z.string().regex(/^[\w-]{1,40}$/, "name is a word of letters, digits, - or _, e.g. search"),
  page: z.string().startsWith("/", "page is a site path starting with /"),
  steps: flowActions,
  /** Save the context's cookies and storage once the steps ran (a login flow). */
  saveState: stateFile.optional(),
});
export type Flow = z.infer<typeof flowSchema>;

/** The prefix of the tool names unless the project sets another. */
export const DEFAULT_PREFIX = "blog";

/** A prefix is a lower-case identifier: it starts file and tool names. */
export const PREFIX_PATTERN = /^[a-z][a-z0-9]{0,19}$/;

/** How requests to other hosts that fail at the network layer are judged (browser/page/network.ts). */
export const NETWORK_POLICIES = ["auto", "judge", "ignore", "offline"] as const;
export type NetworkPolicy = (typeof NETWORK_POLICIES)[number];

export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  /** The prefix of the tool names the agent sees (`vigie init --prefix`); default DEFAULT_PREFIX. */
  prefix: z.string().regex(PREFIX_PATTERN, "a lower-case word of letters and digits, e.g. blog or docs").optional(),
  budgets: budgetsSchema.optional(),
  /** Paths checked over HTTP before the crawl; default: "/" and each locale's home. */
  criticalRoutes: z.array(z.string().startsWith("/")).optional(),
  /** Pages measured by perf; default: the home and one article. */
  perfRoutes: z.array(z.string().startsWith("/")).optional(),
  /** Loads per page whose median validate judges (default 3); a page over budget gets 3 more before it fails. */
  perfRuns: z.number().int().min(1).max(20).optional(),
  /** Against a perf baseline (validate --perf-compare): a page slower past the threshold is a "warn" (default) or a "fail"; loads per page at most when the comparison wants more (default 12). */
  perfRegression: z
    .strictObject({ severity: z.enum(["warn", "fail"]).optional(), maxLoads: z.number().int().min(3).max(40).optional() })
    .optional(),
  checks: z
    .strictObject({
      lint: z.boolean().optional(),
      build: z.boolean().optional(),
      check: z.boolean().optional(),
      links: z.boolean().optional(),
      crawl: z.boolean().optional(),
      perf: z.boolean().optional(),
      a11y: z.boolean().optional(),
    })
    .optional(),
  dev: z
    .strictObject({
      command: command.optional(),
      port: z.number().int().min(1).max(65535).optional(),
      /** Seconds the dev server has to answer (default 30): a site whose server is slow to start raises it. */
      readyTimeoutS: z.number().int().min(1).max(600).optional(),
    })
    .optional(),
  build: z.strictObject({ command: command.optional(), timeoutS: z.number().positive().optional() }).optional(),
  crawl: z
    .strictObject({ maxPages: z.number().int().positive().optional(), concurrency: z.number().int().min(1).max(16).optional() })
    .optional(),
  a11y: z
    .strictObject({
      failOn: z.array(z.enum(["minor", "moderate", "serious", "critical"])).optional(),
      tags: z.array(z.string()).optional(),
    })
    .optional(),
  /** Findings that do not count in the verdict, e.g. a theme's own markup: listed apart with their reason. */
  accept: z.array(acceptSchema).optional(),
  /** Reader's actions on pages, each run by validate after the crawl and reported on its own. */
  flows: z
    .array(flowSchema)
    .optional()
    .refine((flows) => new Set(flows?.map((flow) => flow.name)).size === (flows?.length ?? 0), "two flows have the same name"),
  /** A saved login (Playwright's storage-state file) every page check and the crawl open their pages with. */
  storageState: stateFile.optional(),
  /**
   * The screens pages are checked on: "desktop" (1280×800, every page) and "phone" (390×844,
   * touch: the pages that show something only a narrow screen shows). Default both.
   */
  viewports: z
    .array(z.enum(["desktop", "phone"], { error: 'a viewport is "desktop" or "phone"' }))
    .min(1, 'name at least "desktop", e.g. ["desktop"] or ["desktop", "phone"]')
    .refine((names) => names.includes("desktop"), 'every page is checked on "desktop": write ["desktop"] or ["desktop", "phone"]')
    .refine((names) => new Set(names).size === names.length, "a viewport is named twice")
    .optional(),
  /**
   * Requests to other hosts that fail at the network layer: "auto" (default) judges only what
   * this machine can tell is the site's fault (a name that does not exist while others
   * resolve), and names once the hosts it cannot reach; "judge": every one is a finding;
   * "ignore": none is; "offline": they are blocked (faster, the same on every machine).
   */
  network: z.enum(NETWORK_POLICIES, { error: 'network is "auto", "judge", "ignore" or "offline"' }).optional(),
});
export type VigieConfig = z.infer<typeof configSchema>;

export const CONFIG_FILE = "vigie.config.json";

/** The project's config, validated; an empty config when there is no file. */
export function loadConfig(project: Project): VigieConfig {
  const path = join(project.root, CONFIG_FILE);
  if (!existsSync(path)) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new VigieError(
      `${CONFIG_FILE} is not valid JSON: ${(error as Error).message}`,
      `Fix the JSON syntax of ${CONFIG_FILE}, or remove the file to use the defaults.`,
    );
  }
  const result = configSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.join(".") || "(top level)";
    const detail = issue?.code === "unrecognized_keys" ? `unknown field ${issue.keys.join(", ")}` : (issue?.message ?? "invalid");
    throw new VigieError(
      `${CONFIG_FILE}: ${where}: ${detail}`,
      where.startsWith("flows")
        ? `Fix ${where} in ${CONFIG_FILE}. A flow is {"name", "page", "steps": [...], "saveState"?}. ${ACTIONS_ACCEPTED}`
        : `Fix ${where} in ${CONFIG_FILE}. Accepted top-level fields: ${Object.keys(configSchema.shape).join(", ")}.`,
      { field: where },
    );
  }
  return result.data;
}

/** The saved login's absolute path when the config names one. */
export function storageStateOf(project: Project, config: VigieConfig): string | undefined {
  return config.storageState ? join(project.root, config.storageState) : undefined;
}

/** Whether pages that show something only on narrow screens are also checked on a phone (the default). */
export function checksPhone(config: VigieConfig): boolean {
  return config.viewports?.includes("phone") ?? true;
}

export function budgetsOf(config: VigieConfig): Budgets {
  return { ...DEFAULT_BUDGETS, ...config.budgets };
}
