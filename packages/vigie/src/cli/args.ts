// The command line of one tool call: which tool, and its arguments from flags or JSON.
// Values are read with the tool's argument schema: numbers and booleans where the schema
// says so, arrays from JSON or repeated flags; anything else is left as written, for the
// tool's own validation to name.
import { DEFAULT_PREFIX, type ToolDefinition, toolName } from "../tools/define.ts";
import type { ArgumentSchema, ArgumentsSchema } from "../tools/schema.ts";
import { readWords, UsageError } from "./flags.ts";

export { UsageError };

/**
 * The tool named by the first words: full name (blog_dev_start, or with the project's
 * prefix: docs_dev_start), without the prefix
 * (dev_start), as two words (dev start), or by its export name when no other tool has it
 * (lint). Dashes stand for underscores.
 */
export function findToolByWords(
  definitions: readonly ToolDefinition[],
  words: readonly string[],
): { definition: ToolDefinition; used: number } | undefined {
  let first = words[0]?.replaceAll("-", "_");
  if (!first) return undefined;
  const named = (name: string) => definitions.find((definition) => toolName(definition) === name);
  // Under any prefix (`vigie init --prefix docs`): docs_dev_start is the canonical blog_dev_start.
  const prefixed = /^[a-z][a-z0-9]*_((?:dev|build|browser)_\w+)$/.exec(first);
  const canonical = (rest: string) => `${DEFAULT_PREFIX}_${rest}`;
  if (prefixed?.[1] && !named(first) && named(canonical(prefixed[1]))) first = canonical(prefixed[1]);
  const direct = named(first) ?? named(canonical(first));
  if (direct) return { definition: direct, used: 1 };
  const second = words[1];
  if (second && /^[a-z][\w-]*$/i.test(second)) {
    const pair = named(canonical(`${first}_${second.replaceAll("-", "_")}`));
    if (pair) return { definition: pair, used: 2 };
  }
  const byExport = definitions.filter((definition) => definition.exportName === first);
  if (byExport.length === 1 && byExport[0]) return { definition: byExport[0], used: 1 };
  return undefined;
}

const NUMBER = /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

function loose(raw: string): unknown {
  if (NUMBER.test(raw)) return Number(raw);
  if (raw === "true" || raw === "false") return raw === "true";
  if (/^\s*[[{]/.test(raw)) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

function readValue(raw: string, schema: ArgumentSchema | undefined): unknown {
  switch (schema?.type) {
    case "integer":
    case "number":
      return NUMBER.test(raw) ? Number(raw) : raw;
    case "boolean":
      return raw === "true" ? true : raw === "false" ? false : raw;
    case "string":
      return raw;
    case "array":
      if (/^\s*\[/.test(raw)) {
        try {
          return JSON.parse(raw);
        } catch {
          throw new UsageError(`not a JSON array: ${raw}`);
        }
      }
      return [readValue(raw, schema.items)];
    default:
      return loose(raw);
  }
}

function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/** The JSON object of arguments given as one word. */
function jsonArguments(word: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(word);
  } catch (error) {
    throw new UsageError(`the JSON arguments do not parse: ${(error as Error).message}`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new UsageError("the JSON arguments must be an object");
  return parsed as Record<string, unknown>;
}

/**
 * The arguments object of a call from the words after the tool's name:
 * `--name value`, `--name=value`, `--flag` (true), and at most one JSON object.
 * parseArgs reads the words; the schema says which value a lone `--name` takes.
 */
export function parseToolArgs(schema: ArgumentsSchema, words: readonly string[]): Record<string, unknown> {
  const properties = schema.properties;
  const args: Record<string, unknown> = {};
  const fromFlags = new Set<string>();
  const consumed = new Set<number>();
  let json = false;
  for (const word of readWords(words)) {
    if (consumed.has(word.index)) continue;
    const written = words[word.index] as string;
    if (word.flag === undefined && !word.malformed && /^\s*\{/.test(written)) {
      if (json) throw new UsageError("only one JSON object of arguments may be given");
      json = true;
      for (const [key, value] of Object.entries(jsonArguments(written))) if (!fromFlags.has(key)) args[key] = value;
      continue;
    }
    if (word.flag === undefined) {
      if (word.malformed && written.startsWith("--") && written.length > 2) throw new UsageError(`"${written}" has no argument name`);
      throw new UsageError(`unexpected "${written}": arguments are --name value, --name=value, --flag, or one JSON object`);
    }
    const flag = word.flag;
    const key = flag in properties ? flag : camelCase(flag) in properties ? camelCase(flag) : flag;
    const property = properties[key];
    let raw = word.value;
    if (raw === undefined) {
      const next = words[word.index + 1];
      const takesNext = next !== undefined && (property?.type === "boolean" ? next === "true" || next === "false" : !next.startsWith("--"));
      if (takesNext) {
        raw = next;
        consumed.add(word.index + 1);
      }
    }
    const value = raw === undefined ? true : readValue(raw, property);
    if (property?.type === "array") {
      const previous = fromFlags.has(key) && Array.isArray(args[key]) ? (args[key] as unknown[]) : [];
      args[key] = [...previous, ...(Array.isArray(value) ? value : [value])];
    } else {
      args[key] = value;
    }
    fromFlags.add(key);
  }
  return args;
}

/** One line per argument: name, type, description; for `vigie <tool> --help`. */
export function describeArguments(schema: ArgumentsSchema): string[] {
  const required = new Set(schema.required ?? []);
  const rows = Object.entries(schema.properties).map(([name, property]) => {
    const type = property.enum
      ? property.enum.map((value) => JSON.stringify(value)).join("|")
      : property.type === "array"
        ? `${property.items?.type ?? "value"}[]`
        : (property.type ?? "value");
    const what = [required.has(name) ? "required" : "", property.description ?? ""].filter(Boolean).join("; ");
    return { flag: `--${name} <${type}>`, what };
  });
  const width = Math.max(0, ...rows.map((row) => row.flag.length));
  return rows.map((row) => `  ${row.flag.padEnd(width)}  ${row.what}`.trimEnd());
}
