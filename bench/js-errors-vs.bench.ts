// blog_browser_js_errors against what an agent would call in Chrome DevTools MCP
// (navigate_page + list_console_messages + list_network_requests) and in Playwright MCP
// (browser_navigate + browser_console_messages + browser_network_requests): the three
// servers driven alike by the MCP SDK's client over stdio, each with its own warm headless
// Chromium (Debian's /usr/bin/chromium, isolated profile), on the same pages of the blog's
// production preview, alternating, medians; the bytes of the answers too. Then vigie's
// warm session against a new Chromium per call, in this process.
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { sharedSession } from "../packages/vigie/src/core/browser/session/session.ts";
import { findTool } from "../packages/vigie/src/tools/registry.ts";
import { runTool } from "../packages/vigie/src/tools/run.ts";
import { copyBlog, runAstro, serveBlog } from "../packages/vigie/test/support/blog.ts";
import { addFaultPages, appendToArticle, INVALID_FLOWCHART } from "../packages/vigie/test/support/faults.ts";
import { median, ms } from "./stats.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const CHROMIUM = "/usr/bin/chromium";
const RUNS = Number(process.env.BENCH_RUNS) || 10;
const COLD_RUNS = Math.max(4, Math.round(RUNS * 0.6));
/** The pause before a timed call: an agent's turn (reading the answer, deciding), in which no call runs. */
const THINK_MS = 1000;

export interface Server {
  name: string;
  client: Client;
  transport: StdioClientTransport;
  /** One check of a page: the calls an agent makes, in order. */
  calls: (url: string, path: string) => [string, Record<string, unknown>][];
}

export async function connect(name: string, args: string[], cwd: string, calls: Server["calls"]): Promise<Server> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    cwd,
    stderr: "ignore",
    // CI set: neither server sends usage statistics.
    env: { ...process.env, CI: "1" } as Record<string, string>,
  });
  const client = new Client({ name: "vigie-bench", version: "0.0.0" });
  await client.connect(transport);
  return { name, client, transport, calls };
}

/** Playwright MCP's command line: headless, isolated, on this machine's Chromium, its files under `scratch`. */
export function playwrightMcpArgs(scratch: string): string[] {
  return [
    join(ROOT, "node_modules/@playwright/mcp/cli.js"),
    "--headless",
    "--isolated",
    "--browser",
    "chromium",
    "--executable-path",
    CHROMIUM,
    "--no-sandbox",
    "--output-dir",
    join(scratch, "playwright-mcp"),
  ];
}

export async function disconnect(server: Server): Promise<void> {
  const pid = server.transport.pid;
  await server.client.close().catch(() => undefined);
  if (pid) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone, as it should be
    }
  }
}

/** Runs one check; returns its time and the bytes of the text the model would read. */
async function check(server: Server, url: string, path: string): Promise<{ ms: number; bytes: number; text: string }> {
  const started = performance.now();
  let text = "";
  for (const [name, args] of server.calls(url, path)) {
    const result = (await server.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as {
      content?: { type: string; text?: string }[];
      isError?: boolean;
    };
    const body = (result.content ?? []).map((part) => part.text ?? "").join("\n");
    if (result.isError) throw new Error(`${server.name} ${name}: ${body.slice(0, 300)}`);
    text += `${body}\n`;
  }
  return { ms: performance.now() - started, bytes: Buffer.byteLength(text.trim()), text };
}

export default async function (): Promise<string> {
  const copy = copyBlog("bench-js-errors-vs");
  const scratch = mkdtempSync(join(tmpdir(), "vigie-bench-mcp-"));
  const servers: Server[] = [];
  let preview: Awaited<ReturnType<typeof serveBlog>> | undefined;
  try {
    appendToArticle(copy.root, "en", "mermaid-in-the-browser", INVALID_FLOWCHART);
    addFaultPages(copy.root);
    await runAstro(copy.root, ["build"]);
    preview = await serveBlog(copy.root, "preview");
    const pages = [
      // `fault`: what an answer must hold to tell the page's fault (not the page's own words about it).
      { label: "clean", path: "/en/articles/small-tool-answers/", fault: /$^/ },
      { label: "a 404 image", path: "/faults/missing-image/", fault: /not-there\.png/ },
      { label: "a throw", path: "/faults/throw/", fault: /client script failed on purpose/ },
      { label: "invalid Mermaid diagram", path: "/en/articles/mermaid-in-the-browser/", fault: /Parse error on line/ },
    ].map((page) => ({ ...page, kb: statSync(join(copy.root, "dist", page.path, "index.html")).size / 1024 }));

    servers.push(
      await connect("vigie", [join(ROOT, "packages/vigie/src/cli/main.ts"), "mcp"], copy.root, (_url, path) => [
        ["blog_browser_js_errors", { path, port: preview?.port }],
      ]),
      await connect(
        "Chrome DevTools MCP",
        [
          join(ROOT, "node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js"),
          "--headless",
          "--isolated",
          "--executablePath",
          CHROMIUM,
          "--chromeArg=--no-sandbox",
          "--no-usage-statistics",
          "--no-performance-crux",
          // One agent, one page: the tools act on the selected page, as before page ids.
          "--no-page-id-routing",
        ],
        scratch,
        (url) => [
          ["navigate_page", { type: "url", url }],
          ["list_console_messages", {}],
          ["list_network_requests", {}],
        ],
      ),
      await connect("Playwright MCP", playwrightMcpArgs(scratch), scratch, (url) => [
        ["browser_navigate", { url }],
        ["browser_console_messages", {}],
        ["browser_network_requests", {}],
      ]),
    );

    const rows: string[] = [];
    /** vigie's time over each other server's, per page and rhythm, against the target (no slower). */
    const targets: string[] = [];
    const samples: string[] = [];
    for (const page of pages) {
      const url = `${preview.url}${page.path}`;
      // Each server launches its Chromium and loads the page once, outside the timing.
      for (const server of servers) await check(server, url, page.path);
      const times = new Map<string, number[]>(servers.map((server) => [server.name, []]));
      const again = new Map<string, number[]>(servers.map((server) => [server.name, []]));
      const bytes = new Map<string, number>();
      /** How many of each server's answers tell the page's fault. */
      const told_ = new Map<string, { yes: number; of: number }>();
      for (let run = 0; run < RUNS; run += 1) {
        // Rotate who goes first, so no server always follows the same one.
        const order = servers.map((_, index) => servers[(index + run) % servers.length] as Server);
        for (const server of order) {
          // An agent's turn between two calls (the model reads the answer, decides): untimed.
          await sleep(THINK_MS);
          const result = await check(server, url, page.path);
          times.get(server.name)?.push(result.ms);
          // The same call again at once, as a script calling in a loop would.
          const second = await check(server, url, page.path);
          again.get(server.name)?.push(second.ms);
          bytes.set(server.name, result.bytes);
          const told = told_.get(server.name) ?? { yes: 0, of: 0 };
          for (const answer of [result, second]) {
            told.of += 1;
            if (page.fault.test(answer.text)) told.yes += 1;
          }
          told_.set(server.name, told);
          if (run === 0 && server.name === "vigie") samples.push(`- ${page.label}: \`${result.text.trim().replace(/\s+/g, " ")}\``);
        }
      }
      if (page.label !== "clean")
        for (const server of servers) {
          const told = told_.get(server.name) ?? { yes: 0, of: 0 };
          samples.push(`- ${page.label}, ${server.name}: the fault is in ${told.yes} of its ${told.of} answers`);
        }
      const vigie = median(times.get("vigie") ?? []);
      const vigieAgain = median(again.get("vigie") ?? []);
      const versus = (name: string, m: number, ours: number) =>
        name === "vigie" ? "" : ` (vigie ${m >= ours ? "faster" : "slower"}: ${(ours / m).toFixed(2)}x its time)`;
      for (const server of servers) {
        const m = median(times.get(server.name) ?? []);
        const m2 = median(again.get(server.name) ?? []);
        rows.push(
          `| ${page.label}, \`${page.path}\` (${page.kb.toFixed(1)} KB) | ${server.name} | ${ms(m)}${versus(server.name, m, vigie)} | ${ms(m2)}${versus(server.name, m2, vigieAgain)} | ${bytes.get(server.name)} B |`,
        );
        if (server.name === "vigie") continue;
        const against = (theirs: number, ours: number) =>
          ours <= theirs ? `${(ours / theirs).toFixed(2)}x: met` : `${(ours / theirs).toFixed(2)}x: missed by ${ms(ours - theirs)}`;
        targets.push(`| ${page.label} | ${server.name} | ${against(m, vigie)} | ${against(m2, vigieAgain)} |`);
      }
    }
    for (const server of servers.splice(0)) await disconnect(server);

    // Warm vs a new Chromium per call: the tool in this process, the shared session closed
    // before each cold call (what a server that launches per call pays: launch, check, close).
    const tool = findTool("blog_browser_js_errors");
    if (!tool) throw new Error("no blog_browser_js_errors");
    const coldRows: string[] = [];
    for (const page of pages.filter((page) => page.label === "clean" || page.label === "invalid Mermaid diagram")) {
      const args = { path: page.path, port: preview.port };
      await runTool(tool, args, { project: copy });
      const warm: number[] = [];
      const cold: number[] = [];
      for (let run = 0; run < COLD_RUNS; run += 1) {
        for (const kind of run % 2 ? ["cold", "warm"] : ["warm", "cold"]) {
          // A warm call follows a cold one that closed the browser: warm it again, untimed.
          if (kind === "warm" && !sharedSession().running) await runTool(tool, args, { project: copy });
          await sleep(THINK_MS);
          const started = performance.now();
          if (kind === "cold") await sharedSession().close();
          await runTool(tool, args, { project: copy });
          if (kind === "cold") await sharedSession().close();
          (kind === "warm" ? warm : cold).push(performance.now() - started);
        }
      }
      const w = median(warm);
      const c = median(cold);
      coldRows.push(`| ${page.label} | ${ms(w)} | ${ms(c)} | ${(c / w).toFixed(1)}x |`);
    }
    await sharedSession().close();

    const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(", ");
    return [
      "## js_errors against Chrome DevTools MCP and Playwright MCP",
      "",
      `The same four pages of the blog's production preview (a blog copy with an invalid Mermaid diagram added to one article, and small pages with a missing image and a script that throws), each server over stdio through the MCP SDK's client with its own warm headless Chromium (${CHROMIUM}, isolated profile), ${RUNS} rounds in rotating order, medians (${new Date().toISOString().slice(0, 10)}). Each round, each server is called after a pause of ${THINK_MS / 1000} s (untimed: an agent's turn, the model reading the answer; vigie makes the next check's fresh context then), then once more at once (a script calling in a loop). One check: vigie's \`blog_browser_js_errors\`; Chrome DevTools MCP's \`navigate_page\` + \`list_console_messages\` + \`list_network_requests\`; Playwright MCP's \`browser_navigate\` + \`browser_console_messages\` + \`browser_network_requests\`. Bytes: the text of the answers, as a model reads them. Target: vigie no slower than either, its answers the smallest.`,
      "",
      "| page | server | median, after a 1 s pause | median, right after another call | answer |",
      "| --- | --- | --- | --- | --- |",
      ...rows,
      "",
      "Against the target (vigie's median over the other server's; at most 1x):",
      "",
      "| page | against | after a 1 s pause | back to back |",
      "| --- | --- | --- | --- |",
      ...targets,
      "",
      "What the answers say:",
      "",
      ...samples,
      "",
      `Warm session vs a new Chromium per call (the tool in one process, ${COLD_RUNS} alternating runs, each after a ${THINK_MS / 1000} s pause, medians; cold = launch, check, close). Target: warm at least 8x faster.`,
      "",
      "| page | warm | new Chromium per call | ratio |",
      "| --- | --- | --- | --- |",
      ...coldRows,
      "",
      `Load average when done: ${load} (2 cores, shared).`,
    ].join("\n");
  } finally {
    for (const server of servers) await disconnect(server);
    await sharedSession().close();
    await preview?.stop();
    copy.remove();
    rmSync(scratch, { recursive: true, force: true });
  }
}
