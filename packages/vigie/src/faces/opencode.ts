// The OpenCode face: each group of the registry as the exports of one tool file.
// OpenCode names an export `<file>_<export>`: blog_dev.ts's `start` is blog_dev_start, and
// with another prefix (`vigie init --prefix docs`) docs_dev.ts's is docs_dev_start.
// @opencode-ai/plugin is an optional peer dependency of vigie (MCP and CLI users do without
// it): it is loaded here, with a clear error when the project lacks it.
import type { ToolContext as OpenCodeContext, tool as ToolFunction } from "@opencode-ai/plugin";
import { resolveProject } from "../core/project.ts";
import { DEFAULT_PREFIX, PREFIX_PATTERN, type ToolGroup } from "../tools/define.ts";
import { toolsOf } from "../tools/registry.ts";
import { renameTools, runToolText } from "../tools/run.ts";

type Tool = ReturnType<typeof ToolFunction>;

async function loadPlugin(): Promise<typeof ToolFunction> {
  try {
    return (await import("@opencode-ai/plugin")).tool;
  } catch (error) {
    if ((error as NodeJS.ErrnoException)?.code !== "ERR_MODULE_NOT_FOUND" && !/Cannot find (module|package)/.test(String(error)))
      throw error;
    throw new Error(
      'vigie/opencode needs the package "@opencode-ai/plugin" in this project (an optional peer dependency of vigie): ' +
        "npm install -D @opencode-ai/plugin",
    );
  }
}

const tool = await loadPlugin();

export interface OpenCodeToolsOptions {
  /**
   * The prefix of the tool file's name (`<prefix>_<group>.ts`), so that answers name the
   * tools as OpenCode lists them. Default: "blog".
   */
  prefix?: string;
}

export function openCodeTools(group: ToolGroup, options: OpenCodeToolsOptions = {}): Record<string, Tool> {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  if (!PREFIX_PATTERN.test(prefix)) throw new Error(`vigie/opencode: prefix "${prefix}" must be a lower-case word of letters and digits`);
  const exports: Record<string, Tool> = {};
  for (const definition of toolsOf(group)) {
    exports[definition.exportName] = tool({
      description: renameTools(definition.description, prefix),
      // Built with OpenCode's own zod, so the JSON schema the model sees is valid.
      args: definition.args(tool.schema as never) as never,
      execute: (args: unknown, context: OpenCodeContext) =>
        runToolText(definition, args, {
          project: resolveProject(context.directory || context.worktree || process.cwd()),
          signal: context.abort,
          progress: (message, detail) => context.metadata({ title: message, metadata: detail ?? {} }),
          prefix,
        }),
    });
  }
  return exports;
}
