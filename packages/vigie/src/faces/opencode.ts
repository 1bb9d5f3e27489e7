// The OpenCode face: each group of the registry as the exports of one tool file.
// OpenCode names an export `<file>_<export>`: blog_dev.ts's `start` is blog_dev_start.
import { type ToolContext as OpenCodeContext, tool } from "@opencode-ai/plugin";
import { resolveProject } from "../core/project.ts";
import type { ToolGroup } from "../tools/define.ts";
import { toolsOf } from "../tools/registry.ts";
import { runToolText } from "../tools/run.ts";

export function openCodeTools(group: ToolGroup): Record<string, ReturnType<typeof tool>> {
  const exports: Record<string, ReturnType<typeof tool>> = {};
  for (const definition of toolsOf(group)) {
    exports[definition.exportName] = tool({
      description: definition.description,
      // Built with OpenCode's own zod, so the JSON schema the model sees is valid.
      args: definition.args(tool.schema as never) as never,
      execute: (args: unknown, context: OpenCodeContext) =>
        runToolText(definition, args, {
          project: resolveProject(context.directory || context.worktree || process.cwd()),
          signal: context.abort,
          progress: (message, detail) => context.metadata({ title: message, metadata: detail ?? {} }),
        }),
    });
  }
  return exports;
}
