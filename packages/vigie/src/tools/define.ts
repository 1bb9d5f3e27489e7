// One definition per tool; the OpenCode, MCP and CLI faces are views of these.
import type { z } from "zod";
import type { Answer } from "../core/answer.ts";
import { DEFAULT_PREFIX } from "../core/config.ts";
import type { Project } from "../core/project.ts";
import type { ClientSession } from "./session.ts";

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
  /**
   * The prefix of the tool names the agent sees (`blog` unless the project chose another:
   * `vigie init --prefix`); runTool writes the names in every answer with it.
   */
  prefix?: string;
  /**
   * What an argument the tool does not know does: ignored and named in the answer's
   * `ignoredArguments` (default: clients add their own, such as Gemini CLI's
   * `wait_for_previous`), or refused (the CLI: a typed flag that does nothing is a mistake).
   */
  unknownArguments?: "ignore" | "refuse";
  /**
   * The client's session (an MCP connection, an OpenCode process): the dev servers it starts
   * are stopped when it ends. Without one (the CLI), a started server runs until stopped.
   */
  session?: ClientSession;
}

export type ToolGroup = "dev" | "build" | "browser";

/**
 * The files an answer points at, by what each is (report, log, screenshot, baseline,
 * diffImage): paths relative to the project root. Answers give them in one field, `files`.
 */
export type AnswerFiles = Record<string, string | undefined>;

/** What a tool's run gives the renderer (render.ts): its answer with whole lists and strings, and the files it points at. */
export interface ToolOutput {
  /** The answer, its lists and strings whole: the renderer cuts them to the definition's sizes, limits and budget. */
  answer: Answer;
  /** The files the answer points at. A `report` holds the whole result: the renderer then writes none. */
  files?: AnswerFiles;
  /**
   * What the report the renderer writes when it cuts the answer holds, and its name under
   * .opencode/reports/ (default: the whole answer, in `<tool name>.json`).
   */
  full?: { name: string; content: unknown };
}

/**
 * A list of an answer that the renderer may cut: how many items a default answer shows, and
 * which end it keeps (the first items, or the last ones for a log's tail). A list inside the
 * items of another ("errors.details") is cut in each item, with `more` beside it there.
 */
export type ListSpec = number | { show: number; keep: "first" | "last" };

export interface ToolDefinition<S extends Shape = Shape> {
  /** The export name in `.opencode/tools/blog_<group>.ts`; the full name is blog_<group>_<exportName>. */
  exportName: string;
  group: ToolGroup;
  /** A short human name, for clients that show tools to people (MCP `title`). */
  title: string;
  /** For an agent deciding when to call it: when, and what it answers, in a sentence or two. */
  description: string;
  /**
   * A check: it changes nothing of the project or its processes (it may write its reports
   * and screenshots under .opencode/). MCP `readOnlyHint`.
   */
  readOnly: boolean;
  /** Calling it again with the same arguments has no further effect. MCP `idempotentHint`. */
  idempotent: boolean;
  /** The argument shape, built with the zod a face brings. Describe every argument. */
  args: (zod: Zod) => S;
  /**
   * The fields it answers, as zod shapes (MCP's outputSchema; the tests check every answer
   * against it). Each is optional, and the fields every answer may have are added (answers.ts).
   */
  answer: (zod: Zod) => Shape;
  /** The most bytes its answer takes (default MAX_ANSWER_BYTES, 2 KB). */
  budget?: number;
  /**
   * The lists its answer holds, by their path in the answer ("failing", "content.problems"),
   * with how many items a default answer shows; the renderer cuts them (render.ts).
   */
  lists?: Record<string, ListSpec>;
  /**
   * The most characters a string of its answer shows, by its path ("causes.message",
   * "content.problems.hint", "notes"): a path goes through every item of a list on its way,
   * and a list of strings at its end has each string limited. The renderer clips them (with
   * "…") and the report then has them whole. The core gives whole values.
   */
  limits?: Record<string, number>;
  run: (args: z.infer<z.ZodObject<S>>, context: ToolContext) => Promise<ToolOutput>;
}

/**
 * A port argument: a whole number from 1 to 65535. The range is checked, and said in the error,
 * but left out of the schema: it would be repeated in every tool that takes a port.
 */
export function portArgument(z: Zod, description: string) {
  return z
    .number()
    .refine((port) => Number.isInteger(port) && port >= 1 && port <= 65535, "a port is a whole number from 1 to 65535")
    .describe(description)
    .optional();
}

export function defineTool<S extends Shape>(definition: ToolDefinition<S>): ToolDefinition<S> {
  return definition;
}

export { DEFAULT_PREFIX, PREFIX_PATTERN } from "../core/config.ts";

/** The canonical full name, blog_<group>_<exportName>: the one the sources and answers are written with. */
export function toolName(definition: Pick<ToolDefinition, "group" | "exportName">): string {
  return prefixedToolName(definition, DEFAULT_PREFIX);
}

/** The full name the agent sees with `prefix`: `<prefix>_<group>_<exportName>`. */
export function prefixedToolName(definition: Pick<ToolDefinition, "group" | "exportName">, prefix: string = DEFAULT_PREFIX): string {
  return `${prefix}_${definition.group}_${definition.exportName}`;
}
