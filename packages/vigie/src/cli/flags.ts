// The command line's flags, read by node:util parseArgs. One error for bad usage: it says
// what was wrong and what is accepted; the commands print it and exit 2.
import { statSync } from "node:fs";
import { parseArgs } from "node:util";
import { type Project, resolveProject } from "../core/project.ts";

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** A flag: a string with a placeholder for messages (`--json FILE`), or a boolean. */
export type FlagSpec = Record<string, { type: "string"; value: string } | { type: "boolean"; short?: string }>;

export type FlagValues<S extends FlagSpec> = { [K in keyof S]?: S[K] extends { type: "string" } ? string : boolean };

/** `--json FILE, --strict, --project DIR`: what a command accepts, for its messages. */
export function acceptedFlags(spec: FlagSpec): string {
  return Object.entries(spec)
    .map(([name, flag]) => (flag.type === "string" ? `--${name} ${flag.value}` : `--${name}`))
    .join(", ");
}

/** parseArgs' error in our words: what was wrong, then what is accepted. */
function explain(error: NodeJS.ErrnoException, spec: FlagSpec): string {
  const named = /'(-[^' ]*)/.exec(error.message)?.[1] ?? "";
  const accepted = `Accepted: ${acceptedFlags(spec) || "no option"}`;
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option "${named}". ${accepted}`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument "${named || /'([^']*)'/.exec(error.message)?.[1]}". ${accepted}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE": {
      const flag = spec[named.replace(/^-+/, "")];
      if (flag?.type === "boolean") return `${named} takes no value. ${accepted}`;
      const value = flag?.type === "string" ? flag.value : "VALUE";
      const dash = /ambiguous/.test(error.message) ? ` (a value starting with a dash: ${named}=-x)` : "";
      return `${named} needs a value: ${named} ${value}${dash}. ${accepted}`;
    }
    default:
      return `${error.message}. ${accepted}`;
  }
}

/**
 * The flags of a command (`--name value`, `--name=value`, `--flag`), and its positional
 * arguments when it takes some; anything else is a UsageError.
 */
export function parseFlags<S extends FlagSpec>(
  args: readonly string[],
  spec: S,
  options: { positionals?: boolean; command?: string } = {},
): { values: FlagValues<S>; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: spec,
      strict: true,
      allowPositionals: options.positionals ?? false,
    });
    return { values: { ...values } as FlagValues<S>, positionals };
  } catch (error) {
    if (typeof (error as NodeJS.ErrnoException).code === "string" && (error as NodeJS.ErrnoException).code?.startsWith("ERR_PARSE_ARGS"))
      throw new UsageError(`${options.command ? `${options.command}: ` : ""}${explain(error as NodeJS.ErrnoException, spec)}`);
    throw error;
  }
}

/** The project `--project DIR` names (a directory that must exist), else the one at the current directory. */
export function projectAt(dir: string | undefined): Project {
  if (dir !== undefined && !statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`--project ${dir}: no such directory`);
  return resolveProject(dir ?? process.cwd());
}

/** One word of a command line as parseArgs reads it, with the value that follows a lone `--name`. */
export interface Word {
  index: number;
  /** The flag's name as written (`--full-page`), or undefined for a positional word. */
  flag?: string;
  /** `--name=value`'s value, the positional word, or undefined for a lone `--name`. */
  value?: string;
  /** `-h`, `--` or `--=x`: not a `--name` flag. */
  malformed?: boolean;
}

/** The words as parseArgs tokenizes them, without a spec: flags and positionals in order. */
export function readWords(args: readonly string[]): Word[] {
  const { tokens } = parseArgs({ args: [...args], strict: false, allowPositionals: true, tokens: true });
  const words: Word[] = [];
  const seen = new Set<number>();
  for (const token of tokens) {
    if (seen.has(token.index)) continue; // -abc is one word
    seen.add(token.index);
    if (token.kind === "positional") words.push({ index: token.index, value: token.value });
    else if (token.kind === "option-terminator" || !token.rawName.startsWith("--") || /^=|^$/.test(token.name))
      words.push({ index: token.index, malformed: true });
    else words.push({ index: token.index, flag: token.name, ...(token.inlineValue ? { value: token.value ?? "" } : {}) });
  }
  return words;
}

/** Takes `--name DIR` / `--name=DIR` out of the words: its value, and the other words. */
export function takeFlag(args: readonly string[], name: string): { value?: string; rest: string[] } {
  const taken = new Set<number>();
  let value: string | undefined;
  for (const word of readWords(args)) {
    if (word.flag !== name || taken.has(word.index)) continue;
    taken.add(word.index);
    if (word.value !== undefined) value = word.value;
    else {
      value = args[word.index + 1];
      if (value === undefined || value.startsWith("--")) throw new UsageError(`--${name} needs a value: --${name} DIR`);
      taken.add(word.index + 1);
    }
  }
  return { ...(value !== undefined ? { value } : {}), rest: args.filter((_, index) => !taken.has(index)) };
}
