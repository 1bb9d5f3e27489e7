import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { type Answer, errorAnswer, serialize, toErrorAnswer } from "../core/answer.ts";
import { CONFIG_FILE } from "../core/config.ts";
import type { Project } from "../core/project.ts";
import { DEFAULT_PREFIX, PREFIX_PATTERN, type Shape, type ToolContext, type ToolDefinition, type ToolOutput, toolName } from "./define.ts";
import { stepErrorAnswer } from "./hints.ts";
import { registry } from "./registry.ts";
import { renderAnswer } from "./render.ts";

const schemas = new WeakMap<ToolDefinition, z.ZodObject<Shape>>();

function schemaOf(definition: ToolDefinition): z.ZodObject<Shape> {
  let schema = schemas.get(definition);
  if (!schema) {
    schema = z.strictObject(definition.args(z));
    schemas.set(definition, schema);
  }
  return schema;
}

/** The accepted form of one argument, from its schema's description and type. */
function acceptedForm(definition: ToolDefinition, key: string): string {
  const field = schemaOf(definition).shape[key];
  if (!field) return "";
  const json = z.toJSONSchema(field, { unrepresentable: "any" }) as {
    type?: string;
    enum?: unknown[];
    minimum?: number;
    maximum?: number;
    description?: string;
  };
  const parts: string[] = [];
  if (json.enum) parts.push(`one of ${json.enum.map((v) => JSON.stringify(v)).join(", ")}`);
  else if (json.type) parts.push(json.type);
  if (json.minimum !== undefined || json.maximum !== undefined) parts.push(`from ${json.minimum ?? "-∞"} to ${json.maximum ?? "∞"}`);
  if (json.description) parts.push(`(${json.description})`);
  return parts.join(" ");
}

/** The parsed arguments, and the names of those the tool does not know (left out). */
export type ParsedArgs = { ok: true; args: Record<string, unknown>; ignored: string[] } | { ok: false; answer: Answer };

/**
 * Validates raw arguments; returns the parsed ones or an error answer naming the argument.
 * An argument the tool does not know is left out and named in `ignored` (clients add their
 * own: Gemini CLI's `wait_for_previous`), unless `unknown` is "refuse" (the CLI). A known
 * argument of the wrong type or value is always an error, with the accepted form as hint.
 */
export function parseArgs(definition: ToolDefinition, raw: unknown, unknown: "ignore" | "refuse" = "ignore"): ParsedArgs {
  const input = raw === undefined || raw === null ? {} : raw;
  const name = toolName(definition);
  const accepted = Object.keys(schemaOf(definition).shape);
  if (typeof input !== "object" || Array.isArray(input)) {
    return {
      ok: false,
      answer: errorAnswer(`${name}: arguments must be an object`, `Pass an object with any of: ${accepted.join(", ") || "no arguments"}.`),
    };
  }
  const ignored = Object.keys(input).filter((key) => !accepted.includes(key));
  if (ignored.length > 0 && unknown === "refuse") {
    return {
      ok: false,
      answer: errorAnswer(
        `${name}: unknown argument ${ignored.map((k) => `"${k}"`).join(", ")}`,
        `Remove it and retry. Accepted arguments: ${accepted.join(", ") || "none"}.`,
      ),
    };
  }
  const known = Object.fromEntries(Object.entries(input).filter(([key]) => accepted.includes(key)));
  const result = schemaOf(definition).safeParse(known);
  if (result.success) return { ok: true, args: result.data, ignored };
  const issue = result.error.issues[0];
  const key = String(issue?.path[0] ?? "");
  const received = known[key];
  return {
    ok: false,
    answer: errorAnswer(
      `${name}: invalid argument "${key}": ${issue?.message ?? "invalid"} (got ${JSON.stringify(received)?.slice(0, 80) ?? "nothing"})`,
      `Expected ${acceptedForm(definition, key) || "a valid value"}.`,
      { argument: key },
    ),
  };
}

/**
 * Runs a tool as every face does: validate, run, turn any exception into an error
 * answer (a StepError's hint names the tool to call), and render the answer (render.ts):
 * its strings clipped to their limits, its lists cut to their sizes and its budget, what was
 * cut in a report, its files in `files`.
 * Arguments the tool does not know are named in the answer's `ignoredArguments`.
 */
export async function runTool(definition: ToolDefinition, raw: unknown, context: ToolContext): Promise<Answer> {
  const parsed = parseArgs(definition, raw, context.unknownArguments);
  if (!parsed.ok) return renameTools(parsed.answer, context.prefix);
  let output: ToolOutput;
  try {
    output = await definition.run(parsed.args as never, context);
  } catch (error) {
    output = { answer: stepErrorAnswer(error) ?? toErrorAnswer(error) };
  }
  let { answer } = output;
  if (parsed.ignored.length > 0) answer = { ...answer, ignoredArguments: parsed.ignored };
  return renderAnswer(definition, { ...output, answer: renameTools(answer, context.prefix) }, context);
}

/**
 * The fields in which vigie writes tool names (hints, notes, its own error messages, a
 * finding's tool and fix). Every other field holds the project's data (paths, log lines,
 * page errors) and is never rewritten.
 */
const NAMING_FIELDS = new Set(["hint", "note", "error", "stale", "tool", "fix", "lifetime"]);

/** The sixteen canonical names (blog_dev_start...), whole words only; built on first use. */
let canonicalNames: RegExp | undefined;

function canonicalNamePattern(): RegExp {
  if (!canonicalNames) {
    // Built at first use: the registry's modules may import this one.
    const names = registry.map((definition) => toolName(definition).slice(DEFAULT_PREFIX.length + 1));
    canonicalNames = new RegExp(`(?<![\\w./\\\\-])${DEFAULT_PREFIX}_(${names.join("|")})(?![\\w/\\\\-]|\\.\\w)`, "g");
  }
  return canonicalNames;
}

/**
 * Writes the canonical names of vigie's tools (`blog_dev_start`) with the prefix the agent
 * really sees, in a text, or in an answer's naming fields (hint, note, error, tool, fix...)
 * at any depth. Only the sixteen names, as whole words: `src/blog_dev_start.md` or
 * `myblog_dev_start` stay as they are, and nothing changes with the default prefix.
 */
export function renameTools<T>(value: T, prefix: string = DEFAULT_PREFIX): T {
  if (prefix === DEFAULT_PREFIX) return value;
  const pattern = canonicalNamePattern();
  const renameText = (text: string) => text.replace(pattern, `${prefix}_$1`);
  const rename = (item: unknown, naming: boolean): unknown => {
    if (typeof item === "string") return naming ? renameText(item) : item;
    if (Array.isArray(item)) return item.map((inner) => rename(inner, naming));
    if (item && typeof item === "object")
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, rename(inner, NAMING_FIELDS.has(key))]));
    return item;
  };
  return rename(value, true) as T;
}

/** Runs a tool and serializes the answer: what OpenCode and MCP send to the model. */
export async function runToolText(definition: ToolDefinition, raw: unknown, context: ToolContext): Promise<string> {
  return serialize(await runTool(definition, raw, context));
}

/**
 * The prefix the project chose (`"prefix"` in vigie.config.json, which `vigie init --prefix`
 * writes), else blog. A config that does not parse gives the default here: the tools that
 * read the config report its error themselves.
 */
export function prefixOf(project: Project): string {
  try {
    const config = JSON.parse(readFileSync(join(project.root, CONFIG_FILE), "utf8")) as { prefix?: unknown };
    if (typeof config?.prefix === "string" && PREFIX_PATTERN.test(config.prefix)) return config.prefix;
  } catch {
    // no file, or not JSON
  }
  return DEFAULT_PREFIX;
}
