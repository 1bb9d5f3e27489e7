// `vigie`: any tool from the command line, the MCP server, the validator.
// Every failure prints a message and what is accepted, never a stack trace
// (VIGIE_DEBUG=1 shows it). Exit codes: 0 success, 1 the tool answered an error,
// 2 bad usage or the harness could not run.
import { relative, resolve } from "node:path";
import { type Answer, clip } from "../core/answer.ts";
import { type Project, ProjectNotFoundError, resolveProject } from "../core/project.ts";
import { DEFAULT_PREFIX, prefixedToolName, type ToolContext, type ToolDefinition, toolName } from "../tools/define.ts";
import { answerFiles } from "../tools/render.ts";
import { describeArguments, findToolByWords, parseToolArgs } from "./args.ts";
import { parseFlags, projectAt, takeFlag, UsageError } from "./flags.ts";

const USAGE = `vigie: eyes and hands for coding agents on a web project

Usage:
  vigie <tool> [--name value ...]   call one tool and print its JSON answer
  vigie <tool> '{"name": value}'    the same, the arguments as one JSON object
  vigie <tool> --help               what the tool does and its arguments
  vigie list [--json]               the tools and what they do (--json: as MCP lists them)
  vigie mcp                         serve every tool over MCP on stdin/stdout
  vigie init [--prefix blog] [--mcp claude|cursor|gemini|codex] [--force]
                                    install vigie into this Astro project (OpenCode tools,
                                    validator agent, vigie.config.json, .gitignore)
  vigie doctor [--json]             what vigie finds here (Node, Astro, Chromium, site,
                                    OpenCode) and what to do for each thing missing
  vigie validate [options]          the validator workflow, without a model
  vigie merge <report.json>...      join the reports of a sharded validation
  vigie help                        this text

A tool is named in full (blog_dev_start, or with the project's prefix) or short (dev_start, "dev start").
Values: --port 4400, --fullPage (true), --fullPage=false, --tags a --tags b or --tags '["a","b"]'.
--project DIR (before the command, or after it) works on DIR instead of the current directory.

Exit codes: 0 success, 1 the tool answered an error, 2 bad usage or the harness could not run.
`;

const debug = Boolean(process.env.VIGIE_DEBUG);

function say(message: string): void {
  process.stderr.write(`vigie: ${message}\n`);
}

/** Prints a message for bad usage or a harness failure; the exit code is 2. */
function fail(message: string): number {
  say(message);
  return 2;
}

function describe(error: unknown): string {
  if (debug && error instanceof Error && error.stack) return error.stack;
  return error instanceof Error ? error.message : String(error);
}

function write(text: string): Promise<void> {
  return new Promise((resolve) => process.stdout.write(text, () => resolve()));
}

/** `--project` given before the command. */
function leadingProject(argv: string[]): { dir?: string; rest: string[] } {
  const first = argv[0];
  if (first === "--project") return { dir: argv[1], rest: argv.slice(2) };
  if (first?.startsWith("--project=")) return { dir: first.slice("--project=".length), rest: argv.slice(1) };
  return { rest: argv };
}

function firstSentence(text: string): string {
  const sentence = text.match(/^.*?[.?!](?=\s|$)/)?.[0] ?? text;
  return clip(sentence, 110);
}

/** The prefix of the project in the current directory, if there is one (else the default). */
function projectPrefix(prefixOf: (project: Project) => string): string {
  try {
    return prefixOf(resolveProject(process.cwd()));
  } catch {
    return DEFAULT_PREFIX;
  }
}

async function listTools(args: string[]): Promise<number> {
  const asJson = parseFlags(args, { json: { type: "boolean" } }, { command: "list" }).values.json === true;
  const { registry } = await import("../tools/registry.ts");
  const { prefixOf, renameTools } = await import("../tools/run.ts");
  const prefix = projectPrefix(prefixOf);
  if (asJson) {
    const { mcpTools } = await import("../faces/mcp.ts");
    await write(`${JSON.stringify({ tools: mcpTools(prefix) })}\n`);
    return 0;
  }
  const name = (definition: ToolDefinition) => prefixedToolName(definition, prefix);
  const width = Math.max(...registry.map((definition) => name(definition).length));
  const lines = registry.map(
    (definition) => `${name(definition).padEnd(width)}  ${firstSentence(renameTools(definition.description, prefix))}`,
  );
  await write(`${lines.join("\n")}\n\nCall one with: vigie <tool> [--name value ...]; vigie <tool> --help for its arguments.\n`);
  return 0;
}

async function mcp(args: string[], leading: string | undefined): Promise<number> {
  const { values } = parseFlags(args, { project: { type: "string", value: "DIR" } }, { command: "mcp" });
  const project = projectAt(values.project ?? leading);
  const { serveMcp } = await import("../faces/mcp.ts");
  await serveMcp(project);
  return 0;
}

function unknownTool(words: string[], registry: readonly ToolDefinition[]): number {
  const word = words[0] ?? "";
  const names = registry.map(toolName);
  const close = names.filter((name) => name.includes(word.replaceAll("-", "_")));
  return fail(
    `unknown tool or command "${word}".` +
      (close.length ? ` Did you mean ${close.join(", ")}?` : "") +
      `\nTools: ${names.join(", ")}.\nCommands: list, mcp, init, doctor, validate, merge, help. Run "vigie list" for what each tool does.`,
  );
}

function toolHelp(definition: ToolDefinition, lines: string[]): string {
  return `${toolName(definition)}: ${definition.description}\n\nArguments:\n${lines.length ? lines.join("\n") : "  none"}\n`;
}

async function callTool(words: string[], leading: string | undefined): Promise<number> {
  // The group the words name is imported first, alone; the whole registry only when the tool is not there.
  const { groupNamedBy, toolsOfGroup } = await import("../tools/groups.ts");
  const group = groupNamedBy(words[0]);
  let found = group ? findToolByWords(await toolsOfGroup(group), words) : undefined;
  if (!found) {
    const { registry } = await import("../tools/registry.ts");
    found = findToolByWords(registry, words);
    if (!found) return unknownTool(words, registry);
  }
  const { argumentsSchema } = await import("../tools/schema.ts");
  const { definition } = found;
  const name = toolName(definition);
  const schema = argumentsSchema(definition);
  let rest = words.slice(found.used);
  if ((rest.includes("--help") && !("help" in schema.properties)) || rest.includes("-h")) {
    await write(toolHelp(definition, describeArguments(schema)));
    return 0;
  }
  let dir = leading;
  if (!("project" in schema.properties)) {
    const taken = takeFlag(rest, "project");
    dir = taken.value ?? dir;
    rest = taken.rest;
  }
  let args: Record<string, unknown>;
  try {
    args = parseToolArgs(schema, rest);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const accepted = describeArguments(schema);
    return fail(`${name}: ${error.message}\nAccepted arguments:\n${accepted.length ? accepted.join("\n") : "  none"}`);
  }
  const project = projectAt(dir);

  // Ctrl-C cancels the call (the tool stops what it started); a second one ends at once.
  const controller = new AbortController();
  const interrupt = () => {
    if (controller.signal.aborted) process.exit(130);
    say("cancelling (Ctrl-C again to quit at once)");
    controller.abort();
  };
  process.on("SIGINT", interrupt);
  process.on("SIGTERM", interrupt);

  let shown = false;
  const progress: ToolContext["progress"] = process.stderr.isTTY
    ? (message) => {
        shown = true;
        process.stderr.write(`\r\x1b[K${message.slice(0, (process.stderr.columns || 80) - 1)}`);
      }
    : undefined;
  const { prefixOf, runTool } = await import("../tools/run.ts");
  const { serialize } = await import("../core/answer.ts");
  let answer: Answer;
  try {
    answer = await runTool(definition, args, {
      project,
      signal: controller.signal,
      progress,
      prefix: prefixOf(project),
      // A flag typed on a command line that the tool does not know is a mistake, not a client's addition.
      unknownArguments: "refuse",
    });
  } finally {
    if (shown) process.stderr.write("\r\x1b[K");
    // Chromium is closed now, not after its idle period: the process ends at once.
    // Only the browser tools use the shared session; the others do not load it.
    if (definition.group === "browser") {
      const { sharedSession } = await import("../core/browser/session/session.ts");
      await sharedSession().close();
    }
  }
  await write(`${serialize(answer)}\n`);
  for (const line of filesFromHere(answer, project.root, process.cwd())) say(line);
  if (controller.signal.aborted) return 130;
  return "error" in answer ? 1 : 0;
}

/**
 * The answer's files (its `files`, paths relative to the project root) as paths from the
 * current directory, one line each, when the project is elsewhere (`--project`): what to open
 * from here. None when the project is the current directory: the answer's paths are right.
 */
function filesFromHere(answer: Answer, root: string, cwd: string): string[] {
  if (resolve(root) === resolve(cwd)) return [];
  return Object.entries(answerFiles(answer)).map(([role, path]) => `${role}: ${relative(cwd, resolve(root, path)) || "."}`);
}

async function main(argv: string[]): Promise<number> {
  const { dir, rest } = leadingProject(argv);
  const [command, ...args] = rest;
  switch (command) {
    case undefined:
      process.stderr.write(USAGE);
      return 2;
    case "help":
    case "--help":
    case "-h":
      await write(USAGE);
      return 0;
    case "--version":
    case "version":
      await write(`${(await import("../core/version.ts")).VIGIE_VERSION}\n`);
      return 0;
    case "list":
    case "tools":
      return listTools(args);
    case "mcp":
      return mcp(args, dir);
    case "init": {
      const { initCommand } = await import("./init.ts");
      return initCommand(args, dir);
    }
    case "doctor": {
      const { doctorCommand } = await import("./doctor.ts");
      return doctorCommand(args, dir);
    }
    case "validate":
    case "merge": {
      if (dir) process.chdir(dir);
      const { validateCommand, mergeCommand } = await import("./validate.ts");
      return command === "validate" ? validateCommand(args) : mergeCommand(args);
    }
    default:
      if (command.startsWith("-")) return fail(`unknown option "${command}".\n\n${USAGE}`);
      return callTool(rest, dir);
  }
}

function crash(error: unknown): never {
  say(describe(error));
  process.exit(2);
}
process.on("uncaughtException", crash);
process.on("unhandledRejection", crash);

let code: number;
try {
  code = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError || error instanceof ProjectNotFoundError) code = fail(error.message);
  else if ((error as NodeJS.ErrnoException)?.code === "ENOENT" && (error as NodeJS.ErrnoException).syscall === "chdir")
    code = fail(`no such directory: ${(error as NodeJS.ErrnoException).path}`);
  else code = fail(describe(error));
}
process.exit(code);
