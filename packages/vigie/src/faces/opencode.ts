// The OpenCode face: each group of the registry as the exports of one tool file.
// OpenCode names an export `<file>_<export>`: blog_dev.ts's `start` is blog_dev_start, and
// with another prefix (`vigie init --prefix docs`) docs_dev.ts's is docs_dev_start.
// OpenCode takes any export shaped `{ description, args, execute }` with zod 4 argument
// schemas (@opencode-ai/plugin's `tool()` only returns its argument), so the tools load
// whether or not the project has the plugin. With it, the schemas are built with its zod
// (OpenCode's own copy), which writes them whole for the model; without it, with vigie's
// zod 4, which OpenCode reads with every description but an integer as a number, and no
// bounds (runTool checks every argument anyway, and its error says the accepted form).
import { z } from "zod";
import { resolveProject } from "../core/project.ts";
import { DEFAULT_PREFIX, PREFIX_PATTERN, type ToolGroup } from "../tools/define.ts";
import { toolsOf } from "../tools/registry.ts";
import { renameTools, runToolText } from "../tools/run.ts";
import { ClientSession } from "../tools/session.ts";

/** The zod the argument schemas are built with: the plugin's copy when the project has it. */
const zod: typeof z = await import("@opencode-ai/plugin").then(
  (plugin) => plugin.tool.schema as unknown as typeof z,
  () => z,
);

/**
 * What this OpenCode process started: on its exit, the dev servers it started get SIGTERM
 * (their own process groups; a server that ran before is left alone). Listening to the
 * exit event only: a signal listener would keep OpenCode from ending on that signal.
 */
const session = new ClientSession("this OpenCode process");
process.once("exit", () => session.closeNow());

/** The part of OpenCode's tool context vigie reads. */
export interface OpenCodeContext {
  directory?: string;
  worktree?: string;
  abort?: AbortSignal;
  metadata?: (input: { title?: string; metadata?: Record<string, unknown> }) => void;
}

/** A tool as OpenCode loads it from a tool file's export. */
export interface OpenCodeTool {
  description: string;
  args: Record<string, z.ZodType>;
  execute: (args: unknown, context: OpenCodeContext) => Promise<string>;
}

export interface OpenCodeToolsOptions {
  /**
   * The prefix of the tool file's name (`<prefix>_<group>.ts`), so that answers name the
   * tools as OpenCode lists them. Default: DEFAULT_PREFIX ("blog").
   */
  prefix?: string;
}

export function openCodeTools(group: ToolGroup, options: OpenCodeToolsOptions = {}): Record<string, OpenCodeTool> {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  if (!PREFIX_PATTERN.test(prefix)) throw new Error(`vigie/opencode: prefix "${prefix}" must be a lower-case word of letters and digits`);
  const exports: Record<string, OpenCodeTool> = {};
  for (const definition of toolsOf(group)) {
    exports[definition.exportName] = {
      description: renameTools(definition.description, prefix),
      args: definition.args(zod),
      execute: (args, context) =>
        runToolText(definition, args, {
          project: resolveProject(context?.directory || context?.worktree || process.cwd()),
          ...(context?.abort ? { signal: context.abort } : {}),
          progress: (message, detail) => context?.metadata?.({ title: message, metadata: detail ?? {} }),
          prefix,
          session,
        }),
    };
  }
  return exports;
}
