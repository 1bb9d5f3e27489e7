// `vigie doctor`: what vigie finds in this project and on this machine (Node, Astro,
// Chromium, the site's locales and content collections, OpenCode, MCP configurations), and
// what to do for each thing missing. Exit 0 when vigie can run its checks, 1 otherwise.
import { existsSync, readFileSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describeRoutes } from "../core/astro/rendering.ts";
import { readSite, type Site } from "../core/astro/site.ts";
import { findChromium, NO_CHROMIUM_HINT } from "../core/browser/session/executable.ts";
import { CONFIG_FILE, loadConfig } from "../core/config.ts";
import { installedVersion } from "../core/packages.ts";
import type { Project } from "../core/project.ts";
import { prefixOf } from "../tools/run.ts";
import { parseFlags, projectAt } from "./flags.ts";
import { type SiteSummary, siteSummary } from "./init/site.ts";

export type Status = "ok" | "missing" | "warn" | "info";

export interface DoctorItem {
  name: string;
  status: Status;
  found: string;
  /** What to do, when something is missing or wrong. */
  fix?: string;
}

export interface DoctorReport {
  project: string;
  ok: boolean;
  items: DoctorItem[];
}

const NODE_MIN = [22, 12] as const;

function nodeItem(): DoctorItem {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  const ok = major > NODE_MIN[0] || (major === NODE_MIN[0] && minor >= NODE_MIN[1]);
  return {
    name: "Node",
    status: ok ? "ok" : "missing",
    found: `${process.versions.node} (${process.execPath})`,
    ...(ok ? {} : { fix: "Astro and vigie need Node 22.12 or newer: install one, or add it to the project with npm i -D node@24" }),
  };
}

/** An executable on PATH or in the project's node_modules/.bin. */
function findExecutable(project: Project, name: string): string | undefined {
  const dirs = [join(project.root, "node_modules", ".bin"), ...(process.env.PATH ?? "").split(delimiter).filter(Boolean)];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

function astroItem(site: SiteSummary): DoctorItem {
  if (site.astro?.version) return { name: "Astro", status: "ok", found: site.astro.version };
  return {
    name: "Astro",
    status: "missing",
    found: site.astro?.wanted ? `${site.astro.wanted} in package.json, not installed` : "not in package.json",
    fix: site.astro?.wanted ? "npm install" : "vigie checks Astro sites: run it at the root of one (npm create astro@latest makes one)",
  };
}

function chromiumItem(): DoctorItem {
  try {
    const chromium = findChromium();
    return chromium
      ? { name: "Chromium", status: "ok", found: `${chromium.path} (${chromium.source})` }
      : { name: "Chromium", status: "missing", found: "none", fix: NO_CHROMIUM_HINT };
  } catch (error) {
    return { name: "Chromium", status: "missing", found: "none", fix: (error as Error).message };
  }
}

/** What vigie reads of the site: its locales, content collections, critical routes and rendering. */
function siteItems({ rendering }: Site, site: SiteSummary): DoctorItem[] {
  const locales = site.locales.length
    ? `${site.locales.join(", ")}${site.defaultLocale ? ` (default ${site.defaultLocale})` : ""}`
    : "one language (no i18n)";
  return [
    { name: "Locales", status: "info", found: locales },
    {
      name: "Content",
      status: "info",
      found: site.collections.length
        ? site.collections.map((collection) => `${collection.name} (${collection.folder}, ${collection.entries})`).join(", ")
        : "no content collection (pages in src/pages)",
    },
    { name: "Critical routes", status: "info", found: site.criticalRoutes.join(" ") },
    {
      name: "Rendering",
      status: "info",
      found: `output "${rendering.output}"${rendering.adapter ? `, ${rendering.adapter}` : ""}; ${rendering.serveNote}; ${
        rendering.routes ? `routes of the last build: ${describeRoutes(rendering.routes)}` : "routes known after a build"
      }`,
    },
  ];
}

function configItem(project: Project): DoctorItem {
  try {
    const config = loadConfig(project);
    const exists = existsSync(join(project.root, CONFIG_FILE));
    return exists
      ? { name: "Config", status: "ok", found: `${CONFIG_FILE} (${Object.keys(config).join(", ") || "empty"})` }
      : { name: "Config", status: "info", found: `no ${CONFIG_FILE}: defaults`, fix: "npx vigie init writes one with what it detects" };
  } catch (error) {
    return {
      name: "Config",
      status: "missing",
      found: (error as Error).message,
      fix: (error as { hint?: string }).hint ?? `fix ${CONFIG_FILE}`,
    };
  }
}

/** OpenCode and the tool files `vigie init` writes for it, under the project's prefix. */
function openCodeItem(project: Project): DoctorItem {
  const prefix = prefixOf(project);
  const opencode = findExecutable(project, "opencode");
  const toolFiles = ["dev", "build", "browser"].filter((group) =>
    existsSync(join(project.root, ".opencode", "tools", `${prefix}_${group}.ts`)),
  );
  const plugin = installedVersion(project.root, "@opencode-ai/plugin");
  if (!opencode && toolFiles.length === 0) {
    return {
      name: "OpenCode",
      status: "info",
      found: "not found",
      fix: "optional: npm i -D opencode-ai, then npx vigie init",
    };
  }
  const version = installedVersion(project.root, "opencode-ai");
  const problems: string[] = [];
  if (toolFiles.length < 3) problems.push(`npx vigie init (tool files ${prefix}_*.ts: ${toolFiles.length} of 3)`);
  return {
    name: "OpenCode",
    status: problems.length ? "warn" : "ok",
    found: `${opencode ?? "not on PATH"}${version ? ` ${version}` : ""}; tools ${prefix}_* (${toolFiles.length} files)${plugin ? `; plugin ${plugin}` : ""}`,
    ...(problems.length ? { fix: problems.join("; ") } : {}),
  };
}

/** The MCP clients' configurations in the project that name vigie's server. */
function mcpItem(project: Project): DoctorItem {
  const mcp = [".mcp.json", join(".cursor", "mcp.json"), join(".gemini", "settings.json"), join(".codex", "config.toml")].filter((path) => {
    try {
      const text = readFileSync(join(project.root, path), "utf8");
      if (path.endsWith(".toml")) return /^\s*\[\s*mcp_servers\s*\.\s*"?vigie"?\s*\]/m.test(text);
      const config = JSON.parse(text) as { mcpServers?: Record<string, unknown> };
      return Boolean(config.mcpServers?.vigie);
    } catch {
      return false;
    }
  });
  return {
    name: "MCP",
    status: "info",
    found: mcp.length ? `vigie server in ${mcp.join(", ")}` : "no client configured",
    ...(mcp.length ? {} : { fix: "optional: npx vigie init --mcp claude (or cursor, gemini, codex)" }),
  };
}

export function doctor(project: Project): DoctorReport {
  const read = readSite(project);
  const site = siteSummary(read);
  const items: DoctorItem[] = [
    nodeItem(),
    astroItem(site),
    chromiumItem(),
    ...siteItems(read, site),
    configItem(project),
    openCodeItem(project),
    mcpItem(project),
  ];
  return { project: project.root, ok: items.every((item) => item.status !== "missing"), items };
}

export function formatDoctor(report: DoctorReport): string {
  const mark: Record<Status, string> = { ok: "ok", missing: "MISSING", warn: "warn", info: "" };
  const width = Math.max(...report.items.map((item) => item.name.length));
  const lines = report.items.map((item) => {
    const head = `${mark[item.status].padEnd(7)} ${item.name.padEnd(width)}  ${item.found}`;
    return item.fix ? `${head}\n${" ".repeat(width + 10)}-> ${item.fix}` : head;
  });
  return `vigie doctor: ${report.project}\n${lines.join("\n")}\n\n${report.ok ? "vigie can run its checks here." : "Fix what is MISSING above, then run vigie doctor again."}\n`;
}

export async function doctorCommand(args: string[], leading: string | undefined): Promise<number> {
  const { values } = parseFlags(args, { json: { type: "boolean" }, project: { type: "string", value: "DIR" } }, { command: "doctor" });
  const json = values.json === true;
  const dir = values.project ?? leading;
  const report = doctor(projectAt(dir));
  process.stdout.write(json ? `${JSON.stringify(report)}\n` : formatDoctor(report));
  return report.ok ? 0 : 1;
}
