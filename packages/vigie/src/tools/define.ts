// One definition per tool; the OpenCode, MCP and CLI faces are views of these.
import type { z } from "zod";
import type { Answer } from "../core/answer.ts";
import type { Project } from "../core/project.ts";

/** The zod namespace a face brings: OpenCode brings its own copy (tool.schema), MCP and the CLI ours. */
export type Zod = typeof z;
export type Shape = Record<string, z.ZodType>;

/** What a face gives a tool run besides its arguments. */
export interface ToolContext {
  project: Project;
  /** Cancelled when the caller gives up (OpenCode's abort, an MCP cancel, Ctrl-C). */
  signal?: AbortSignal;
  /** Progress for long tools (crawl, build); faces show it where they can. */
  progress?: (message: string, detail?: { done?: number; total?: number }) => void;
}

export type ToolGroup = "dev" | "build" | "browser";

export interface ToolDefinition<S extends Shape = Shape> {
  /** The export name in `.opencode/tools/blog_<group>.ts`; the full name is blog_<group>_<exportName>. */
  exportName: string;
  group: ToolGroup;
  /** For an agent deciding when to call it: when, and what it answers, in a sentence or two. */
  description: string;
  /** The argument shape, built with the zod a face brings. Describe every argument. */
  args: (zod: Zod) => S;
  run: (args: z.infer<z.ZodObject<S>>, context: ToolContext) => Promise<Answer>;
}

export function defineTool<S extends Shape>(definition: ToolDefinition<S>): ToolDefinition<S> {
  return definition;
}

export function toolName(definition: Pick<ToolDefinition, "group" | "exportName">): string {
  return `blog_${definition.group}_${definition.exportName}`;
}
