// What the package tests ask of every site installed from the tarball: the files `vigie init`
// writes, the report `vigie validate --json` leaves, the tools that `npx vigie mcp` and
// `opencode serve` list, and the sizes and times the README quotes.
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { startOpenCode } from "./opencode.ts";
import { type InstalledSite, type RunResult, run } from "./site-install.ts";

/** The sixteen tools, by the names an agent sees with the default prefix. */
export const TOOLS = [
  "blog_dev_start",
  "blog_dev_stop",
  "blog_dev_status",
  "blog_dev_logs",
  "blog_dev_http_get",
  "blog_dev_changes",
  "blog_build_run",
  "blog_build_lint",
  "blog_build_check",
  "blog_build_links",
  "blog_browser_js_errors",
  "blog_browser_perf",
  "blog_browser_screenshot",
  "blog_browser_a11y",
  "blog_browser_crawl",
  "blog_browser_visual_diff",
];

/** What `vigie init` writes in a project that has none of it. */
export const INIT_FILES = [
  ".opencode/tools/blog_dev.ts",
  ".opencode/tools/blog_build.ts",
  ".opencode/tools/blog_browser.ts",
  ".opencode/agents/blog-validator.md",
  ".claude/skills/vigie/SKILL.md",
  ".agents/skills/vigie/SKILL.md",
  "vigie.config.json",
  ".gitignore",
];

export interface Finding {
  severity: string;
  tool: string;
  rule?: string;
  target?: string;
  page?: string;
  file?: string;
  message: string;
}

export interface Report {
  verdict: string;
  findings: Finding[];
  steps?: { name: string; status: string; summary: string }[];
}

/** `npx vigie init` in the site: exit 0 and every file of INIT_FILES created (a .gitignore of the site's own updated). */
export async function initSite(site: InstalledSite): Promise<RunResult> {
  const result = await site.vigie(["init"], 120_000);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  for (const path of INIT_FILES) {
    const verb = path === ".gitignore" ? "(created|updated)" : "created";
    assert.match(result.stdout, new RegExp(`${verb} +${path.replaceAll(".", "\\.")}`), result.stdout);
  }
  assert.match(result.stdout, /Next:\n.*npx vigie validate/);
  return result;
}

/** `npx vigie validate --json <file>` in the site; the command's result and the report it wrote. */
export async function validateSite(site: InstalledSite, file: string): Promise<{ result: RunResult; report: Report }> {
  const result = await site.vigie(["validate", "--json", file], 900_000);
  let report: Report;
  try {
    report = JSON.parse(site.read(file)) as Report;
  } catch {
    assert.fail(
      `validate wrote no report (exit ${result.code ?? result.signal}):\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`,
    );
  }
  return { result, report };
}

/** Asserts a PASS (exit 0), showing the findings and the output's tail otherwise. */
export function assertPass({ result, report }: { result: RunResult; report: Report }): void {
  const shown = `${JSON.stringify(report.findings).slice(0, 3000)}\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`;
  assert.equal(report.verdict, "PASS", shown);
  assert.equal(result.code, 0, shown);
}

/** Asserts PASS or WARN (exit 0): no failing finding. */
export function assertPassOrWarn({ result, report }: { result: RunResult; report: Report }): void {
  const shown = `${JSON.stringify(report.findings).slice(0, 3000)}\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`;
  assert.ok(report.verdict === "PASS" || report.verdict === "WARN", shown);
  assert.deepEqual(
    report.findings.filter((finding) => finding.severity === "fail"),
    [],
    shown,
  );
  assert.equal(result.code, 0, shown);
}

/**
 * Asserts a FAIL (exit 1) with a failing finding of one of `tools` that names `page`
 * (in its page, file or message) and matches `what`; returns that finding.
 */
export function assertFailNaming(
  { result, report }: { result: RunResult; report: Report },
  expected: { tools: string[]; page: RegExp; what: RegExp },
): Finding {
  const shown = `${JSON.stringify(report.findings).slice(0, 3000)}\n${result.stdout.slice(-2000)}`;
  assert.equal(report.verdict, "FAIL", shown);
  assert.equal(result.code, 1, shown);
  assert.match(result.stdout, /FAIL/);
  const finding = report.findings.find(
    (entry) =>
      entry.severity === "fail" &&
      expected.tools.includes(entry.tool) &&
      expected.page.test(`${entry.page ?? ""} ${entry.file ?? ""} ${entry.message}`) &&
      expected.what.test(JSON.stringify(entry)),
  );
  assert.ok(finding, `no failing finding of ${expected.tools.join(" or ")} naming ${expected.page}:\n${shown}`);
  return finding;
}

/**
 * `npx vigie mcp` in the site (or the `server` command given), listed by the MCP SDK's own
 * client: every tool, titled and annotated; blog_dev_status answers.
 */
export async function assertMcpLists(
  root: string,
  server: { command: string; args: string[]; cwd: string; env: Record<string, string> } = {
    command: "npx",
    args: ["--no-install", "vigie", "mcp"],
    cwd: root,
    env: { ...(process.env as Record<string, string>), NO_COLOR: "1" },
  },
): Promise<void> {
  const transport = new StdioClientTransport({ ...server, stderr: "pipe" });
  const client = new Client({ name: "package-test", version: "1.0.0" });
  try {
    await client.connect(transport);
    const listed = await client.listTools();
    assert.deepEqual(listed.tools.map((tool) => tool.name).sort(), [...TOOLS].sort());
    for (const tool of listed.tools) assert.ok(tool.title && tool.annotations && tool.outputSchema, tool.name);
    const status = await client.callTool({ name: "blog_dev_status", arguments: {} });
    assert.equal((status.structuredContent as { running?: boolean }).running, false);
  } finally {
    await client.close();
  }
}

/** `opencode serve` in the site lists every tool of the files `vigie init` wrote. */
export async function assertOpenCodeLists(root: string): Promise<void> {
  const opencode = await startOpenCode(root);
  try {
    const ids = await opencode.request<string[]>("GET", "/experimental/tool/ids", root);
    const missing = TOOLS.filter((name) => !ids.includes(name));
    assert.deepEqual(missing, [], `missing: ${missing.join(", ")}\n${opencode.output().slice(-3000)}`);
  } finally {
    await opencode.stop();
  }
}

/** kB on disk of a folder of the site (du -sk). */
export async function diskKb(root: string, path: string): Promise<number> {
  const du = await run("du", ["-sk", path], { cwd: root, timeoutMs: 60_000 });
  return Number.parseInt(du.stdout, 10);
}

/** Prints a figure and appends it to `file` when one is given (VIGIE_FIGURES_FILE in the environment). */
export function figure(line: string, file = process.env.VIGIE_FIGURES_FILE): void {
  console.log(line);
  if (!file) return;
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, `- ${new Date().toISOString().slice(0, 16)}Z ${line}\n`);
}

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
