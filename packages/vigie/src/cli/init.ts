// `vigie init`: installs the harness into an Astro project. Writes the three OpenCode tool
// files, a validator agent written for the site, the Agent Skill for agents with a shell, vigie.config.json with what it detected,
// the runtime files in .gitignore and, on request, an MCP client's configuration.
// It never overwrites a file the user changed without --force: a file it wrote earlier is
// recognised by the hash recorded in .opencode/vigie-init.json (or by being exactly what it
// would write now). Run twice, it changes nothing.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readSite } from "../core/astro/site.ts";
import { CONFIG_FILE } from "../core/config.ts";
import { readJson } from "../core/files.ts";
import type { Project } from "../core/project.ts";
import { DEFAULT_PREFIX, PREFIX_PATTERN, type ToolGroup } from "../tools/define.ts";
import { toolsOf } from "../tools/registry.ts";
import { type FlagSpec, parseFlags, projectAt, UsageError } from "./flags.ts";
import { validatorAgent } from "./init/agent.ts";
import { type SiteSummary, siteSummary } from "./init/site.ts";
import { SKILL_FILES, skillFile } from "./init/skill.ts";

/**
 * The MCP clients `init --mcp` connects, each with its project configuration and what the
 * client asks the user before the agent sees the tools. The server command never fetches a
 * package: `npx --no-install` fails where vigie is not installed instead of downloading a
 * package of that name, and a client that may start servers outside the project gets the
 * installed bin with the project's path.
 */
export interface McpClientSetup {
  /** The project file that declares the server (JSON with mcpServers, or Codex's TOML with [mcp_servers.NAME]). */
  file: string;
  /** The server: mcpServers.vigie in JSON, [mcp_servers.vigie] in TOML. */
  server: () => { command: string; args: string[] };
  /** What the user starts, and what the client asks of them. */
  next: string;
}

/** Cursor's variable for the folder it opened, written as is into .cursor/mcp.json. */
const WORKSPACE = ["$", "{workspaceFolder}"].join("");

/** Started in the project by the client (its working directory is where the user runs it). */
const NPX_SERVER = () => ({ command: "npx", args: ["--no-install", "vigie", "mcp"] });

export const MCP_CLIENTS = {
  claude: {
    file: ".mcp.json",
    server: NPX_SERVER,
    next: 'claude    # Claude Code asks to trust the folder and to approve the project\'s MCP server "vigie" (from .mcp.json); its tools then load on demand',
  },
  cursor: {
    file: join(".cursor", "mcp.json"),
    // Cursor fills in ${workspaceFolder}; it may start servers outside the project.
    server: () => ({ command: `${WORKSPACE}/node_modules/.bin/vigie`, args: ["mcp", "--project", WORKSPACE] }),
    next: 'cursor .  # Cursor lists "vigie" under its MCP settings (.cursor/mcp.json): switch it on there if it is off',
  },
  gemini: {
    file: join(".gemini", "settings.json"),
    server: NPX_SERVER,
    next: "gemini    # Gemini CLI asks to trust the folder: an untrusted folder gets no project MCP server",
  },
  codex: {
    // Codex reads a project's .codex/config.toml only once the project is trusted; it starts the server in its working folder.
    file: join(".codex", "config.toml"),
    server: NPX_SERVER,
    next: "codex     # Codex asks to trust the folder: it reads .codex/config.toml only in a trusted project (codex exec: --trust)",
  },
} as const satisfies Record<string, McpClientSetup>;
export type McpClient = keyof typeof MCP_CLIENTS;

export interface InitOptions {
  prefix?: string;
  mcp?: McpClient;
  force?: boolean;
}

/** What happened to one file: created, updated (ours, or lines merged in), unchanged, kept (the user's; --force to overwrite), overwritten. */
export type Outcome = "created" | "updated" | "unchanged" | "kept" | "overwritten";

export interface InitResult {
  prefix: string;
  files: { path: string; outcome: Outcome; note?: string }[];
  next: string[];
}

const RECORD = join(".opencode", "vigie-init.json");

const GITIGNORE_LINES = [
  "# vigie's runtime state (logs, pid and port files, reports, screenshots)",
  ".opencode/dev-server.*",
  ".opencode/*.lock",
  ".opencode/reports/",
  ".opencode/screenshots/",
  ".opencode/vigie-init.json",
  ".opencode/state*.json",
  ".opencode/build/",
  ".opencode/dev/",
  ".opencode/changes/",
];

const GROUP_TITLES: Record<ToolGroup, string> = {
  dev: "the dev server's lifecycle, and what an edit changed",
  build: "build, content lint, astro check, link check",
  browser: "page checks in one warm Chromium",
};

const hash = (text: string) => createHash("sha256").update(text).digest("hex");

export function toolFile(group: ToolGroup, prefix: string): string {
  const names = toolsOf(group).map((definition) => definition.exportName);
  return (
    `// ${prefix}_${group}_*: ${GROUP_TITLES[group]}, from vigie (written by \`vigie init\`).\n` +
    `import { openCodeTools } from "vigie/opencode";\n\n` +
    `export const { ${names.join(", ")} } = openCodeTools("${group}", { prefix: "${prefix}" });\n`
  );
}

export function configFile(prefix: string, site: SiteSummary): string {
  // What it detected; budgets and the rest keep their defaults (README, "Configuration").
  const config = { prefix, criticalRoutes: site.criticalRoutes };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** Installs the harness into `project`; the files it wrote and what to run next. */
export function init(project: Project, options: InitOptions = {}): InitResult {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  if (!PREFIX_PATTERN.test(prefix))
    throw new UsageError(`--prefix "${prefix}": a lower-case word of letters and digits (1 to 20), e.g. blog or docs`);
  const site = siteSummary(readSite(project));
  const recordPath = join(project.root, RECORD);
  const record = (readJson(recordPath)?.files ?? {}) as Record<string, string>;
  const files: InitResult["files"] = [];

  const write = (path: string, text: string) => {
    const absolute = join(project.root, path);
    mkdirSync(dirname(absolute), { recursive: true });
    writeFileSync(absolute, text);
    record[path] = hash(text);
  };

  /** A whole file of ours: rewritten only while the user has not changed it. */
  const ours = (path: string, text: string) => {
    const absolute = join(project.root, path);
    if (!existsSync(absolute)) {
      write(path, text);
      files.push({ path, outcome: "created" });
      return;
    }
    const current = readFileSync(absolute, "utf8");
    if (current === text) {
      record[path] = hash(text);
      files.push({ path, outcome: "unchanged" });
    } else if (record[path] === hash(current)) {
      write(path, text);
      files.push({ path, outcome: "updated" });
    } else if (options.force) {
      write(path, text);
      files.push({ path, outcome: "overwritten" });
    } else {
      files.push({ path, outcome: "kept", note: "changed since vigie wrote it, or not vigie's: left as it is (--force overwrites it)" });
    }
  };

  for (const group of ["dev", "build", "browser"] as const)
    ours(join(".opencode", "tools", `${prefix}_${group}.ts`), toolFile(group, prefix));
  ours(join(".opencode", "agents", `${prefix}-validator.md`), validatorAgent(prefix, site));
  for (const path of SKILL_FILES) ours(path, skillFile(prefix, site));
  ours(CONFIG_FILE, configFile(prefix, site));
  const config = files.at(-1);
  if (config?.outcome === "kept") {
    const existing = readJson(join(project.root, CONFIG_FILE));
    if ((existing?.prefix ?? DEFAULT_PREFIX) !== prefix)
      config.note = `${config.note}; it must say "prefix": "${prefix}" for the MCP server and the CLI to use these names`;
  }

  // .gitignore: the runtime lines are added where missing; the user's lines stay.
  const gitignore = join(project.root, ".gitignore");
  const existing = existsSync(gitignore) ? readFileSync(gitignore, "utf8") : "";
  const present = new Set(existing.split(/\r?\n/).map((line) => line.trim()));
  const missing = GITIGNORE_LINES.filter((line) => !present.has(line));
  if (missing.length === 0 || (missing.length === 1 && missing[0]?.startsWith("#"))) {
    files.push({ path: ".gitignore", outcome: "unchanged" });
  } else {
    const separator = existing && !existing.endsWith("\n") ? "\n" : "";
    writeFileSync(gitignore, `${existing}${separator}${existing ? "\n" : ""}${missing.join("\n")}\n`);
    files.push({ path: ".gitignore", outcome: existing ? "updated" : "created" });
  }

  const setup: McpClientSetup | undefined = options.mcp ? MCP_CLIENTS[options.mcp] : undefined;
  if (options.mcp && setup) files.push(mcpConfig(project, options.mcp, options.force ?? false));

  mkdirSync(dirname(recordPath), { recursive: true });
  writeFileSync(recordPath, `${JSON.stringify({ files: record }, null, 2)}\n`);

  const next = [
    "npx vigie validate   # the whole check, without a model: PASS, WARN or FAIL",
    '# agents with a shell (Claude Code, Codex, Gemini CLI, OpenCode) find the skill "vigie" in .claude/skills/ and .agents/skills/',
    `opencode             # with OpenCode: the ${prefix}_* tools load from .opencode/tools/; ask @${prefix}-validator`,
  ];
  if (setup) next.push(setup.next);
  return { prefix, files, next };
}

/** Adds the vigie server to an MCP client's project configuration, keeping every other server and setting. */
function mcpConfig(project: Project, client: McpClient, force: boolean): InitResult["files"][number] {
  const setup: McpClientSetup = MCP_CLIENTS[client];
  const path = setup.file;
  const server = setup.server();
  const absolute = join(project.root, path);
  if (path.endsWith(".toml")) return mcpToml(absolute, path, server, force);
  const exists = existsSync(absolute);
  const current = exists ? readJson(absolute) : {};
  if (!current) return { path, outcome: "kept", note: "not a JSON object: left as it is; add the vigie server by hand" };
  const servers = (current.mcpServers ?? {}) as Record<string, unknown>;
  if (typeof servers !== "object" || Array.isArray(servers))
    return { path, outcome: "kept", note: "mcpServers is not an object: left as it is" };
  if (JSON.stringify(servers.vigie) === JSON.stringify(server)) return { path, outcome: "unchanged" };
  if (servers.vigie !== undefined && !force)
    return { path, outcome: "kept", note: "it already has a different vigie server: left as it is (--force replaces that entry)" };
  const replaced = servers.vigie !== undefined;
  const merged = { ...current, mcpServers: { ...servers, vigie: server } };
  mkdirSync(dirname(absolute), { recursive: true });
  writeFileSync(absolute, `${JSON.stringify(merged, null, 2)}\n`);
  return { path, outcome: !exists ? "created" : replaced ? "overwritten" : "updated" };
}

/**
 * Adds the vigie server to Codex's TOML configuration as a [mcp_servers.vigie] table
 * appended to the file, every other line kept; an existing vigie table is replaced only
 * with --force, and a file that declares it in another form is left to the user.
 */
function mcpToml(absolute: string, path: string, server: { command: string; args: string[] }, force: boolean): InitResult["files"][number] {
  const table = `[mcp_servers.vigie]\ncommand = ${JSON.stringify(server.command)}\nargs = [${server.args.map((arg) => JSON.stringify(arg)).join(", ")}]\n`;
  if (!existsSync(absolute)) {
    mkdirSync(dirname(absolute), { recursive: true });
    writeFileSync(absolute, table);
    return { path, outcome: "created" };
  }
  const current = readFileSync(absolute, "utf8");
  if (current.includes(table)) return { path, outcome: "unchanged" };
  const lines = current.split("\n");
  const header = lines.findIndex((line) => /^\s*\[\s*mcp_servers\s*\.\s*"?vigie"?\s*\]\s*(#.*)?$/.test(line));
  if (header < 0) {
    if (/^\s*mcp_servers\s*=|mcp_servers\s*\.\s*"?vigie"?\b/m.test(current))
      return { path, outcome: "kept", note: "it declares mcp_servers in a form vigie does not edit: add the vigie server by hand" };
    writeFileSync(absolute, `${current}${current && !current.endsWith("\n") ? "\n" : ""}${current ? "\n" : ""}${table}`);
    return { path, outcome: "updated" };
  }
  if (!force)
    return { path, outcome: "kept", note: "it already has a different vigie server: left as it is (--force replaces that table)" };
  const end = lines.findIndex((line, index) => index > header && /^\s*\[/.test(line));
  const after = end < 0 ? [] : lines.slice(end);
  writeFileSync(
    absolute,
    [...lines.slice(0, header), ...table.split("\n").slice(0, -1), ...(after.length ? ["", ...after] : [""])].join("\n"),
  );
  return { path, outcome: "overwritten" };
}

const USAGE = `vigie init [--prefix NAME] [--mcp claude|cursor|gemini|codex] [--force] [--json] [--project DIR]

Installs vigie into the Astro project: .opencode/tools/<prefix>_{dev,build,browser}.ts,
.opencode/agents/<prefix>-validator.md, the Agent Skill "vigie" (.claude/skills/vigie/SKILL.md
and .agents/skills/vigie/SKILL.md), vigie.config.json, .gitignore lines, and with --mcp
the MCP server in Claude Code's .mcp.json, Cursor's .cursor/mcp.json, Gemini CLI's
.gemini/settings.json or Codex's .codex/config.toml.
--prefix   the tools' names start with it (default blog: blog_dev_start...)
--force    overwrite files changed since vigie wrote them
`;

const INIT_FLAGS = {
  prefix: { type: "string", value: "NAME" },
  mcp: { type: "string", value: "claude|cursor|gemini|codex" },
  force: { type: "boolean" },
  json: { type: "boolean" },
  project: { type: "string", value: "DIR" },
  help: { type: "boolean", short: "h" },
} as const satisfies FlagSpec;

/** The command: parses its arguments, runs init, prints what it wrote and what to run next. */
export async function initCommand(args: string[], leading: string | undefined): Promise<number> {
  const { values } = parseFlags(args, INIT_FLAGS, { command: "init" });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const client = values.mcp;
  if (client !== undefined && !(client in MCP_CLIENTS))
    throw new UsageError(`--mcp ${client}: accepted: ${Object.keys(MCP_CLIENTS).join(", ")}`);
  const options: InitOptions = {
    ...(values.prefix !== undefined ? { prefix: values.prefix } : {}),
    ...(client !== undefined ? { mcp: client as McpClient } : {}),
    ...(values.force ? { force: true } : {}),
  };
  const json = values.json === true;
  const dir = values.project ?? leading;
  const project = projectAt(dir);
  const site = siteSummary(readSite(project));
  if (!site.configFile && !site.astro)
    throw new UsageError(
      `${project.root} is not an Astro project (no astro.config.* and no astro in package.json). Run vigie init at the root of an Astro site.`,
    );
  const result = init(project, options);
  if (json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  }
  const width = Math.max(...result.files.map((file) => file.outcome.length));
  const lines = result.files.map((file) => `  ${file.outcome.padEnd(width)}  ${file.path}${file.note ? `  (${file.note})` : ""}`);
  const kept = result.files.some((file) => file.outcome === "kept");
  process.stdout.write(
    `vigie init in ${project.root} (tools ${result.prefix}_*)\n${lines.join("\n")}\n` +
      (kept ? "\nSome files were left as they are: see above; --force overwrites them.\n" : "") +
      `\nNext:\n${result.next.map((line) => `  ${line}`).join("\n")}\n`,
  );
  return 0;
}
