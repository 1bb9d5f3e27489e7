// blog_browser_perf against what an agent would call in Chrome DevTools MCP to learn why a page
// is slow or shifts (performance_start_trace, then performance_analyze_insight on the insights
// that matter; for an interaction, a trace around a click): both over stdio through the MCP SDK's
// client, on the same faulty pages of a blog copy's production preview, in one run, rounds in
// alternating order, medians. Per server: calls, bytes of the text a model reads, time, whether
// the answers name the element at fault and its source file.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readSite } from "../packages/vigie/src/core/astro/site.ts";
import { runBuild } from "../packages/vigie/src/core/build/build.ts";
import { copyBlog, serveBlog } from "../packages/vigie/test/support/blog.ts";
import { addPerfFaultPages } from "../packages/vigie/test/support/perfFaults.ts";
import { connect, disconnect, type Server } from "./js-errors-vs.bench.ts";
import { median, ms } from "./stats.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const CHROMIUM = "/usr/bin/chromium";
const RUNS = Number(process.env.BENCH_RUNS) || 3;

interface Page {
  label: string;
  path: string;
  /** In an answer that names the element at fault. */
  element: RegExp;
  /** In an answer that names the source file to change. */
  source: RegExp;
  /** A click the reader makes (for INP). */
  click?: string;
}

interface Check {
  calls: number;
  bytes: number;
  ms: number;
  text: string;
}

type Call = [string, Record<string, unknown>];

async function call(server: Server, [name, args]: Call): Promise<string> {
  const result = (await server.client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as {
    content?: { type: string; text?: string }[];
    isError?: boolean;
  };
  const body = (result.content ?? []).map((part) => part.text ?? "").join("\n");
  if (result.isError) throw new Error(`${server.name} ${name}: ${body.slice(0, 300)}`);
  return body;
}

/** vigie: one call. */
async function vigieCheck(server: Server, page: Page, port: number): Promise<Check> {
  const started = performance.now();
  const args = { path: page.path, port, ...(page.click ? { actions: [{ click: page.click }] } : {}) };
  const text = await call(server, ["blog_browser_perf", args]);
  return { calls: 1, bytes: Buffer.byteLength(text), ms: performance.now() - started, text };
}

/** The insights an agent would open for this page, among those the trace lists. */
const WANTED = ["LCPBreakdown", "LCPDiscovery", "CLSCulprits", "INPBreakdown", "RenderBlocking", "ImageDelivery"];

/** Chrome DevTools MCP: navigate, trace (a reload, or around the click), then each relevant insight. */
async function devtoolsCheck(server: Server, page: Page, url: string): Promise<Check> {
  const started = performance.now();
  const texts: string[] = [];
  let calls = 0;
  const run = async (c: Call) => {
    calls += 1;
    const text = await call(server, c);
    texts.push(text);
    return text;
  };
  await run(["navigate_page", { type: "url", url }]);
  let trace: string;
  if (page.click) {
    await run(["performance_start_trace", { reload: false, autoStop: false }]);
    const snapshot = await run(["take_snapshot", {}]);
    const uid = new RegExp(`uid=(\\S+) button "${page.click.replace(/^button /, "")}"`).exec(snapshot)?.[1];
    if (!uid) throw new Error(`no uid for ${page.click} in the snapshot`);
    await run(["click", { uid }]);
    trace = await run(["performance_stop_trace", {}]);
  } else {
    trace = await run(["performance_start_trace", { reload: true, autoStop: true, ignoreCache: true }]);
  }
  const set = /insight set id: (\S+)/i.exec(trace)?.[1];
  const listed = new Set([...trace.matchAll(/insight name: (\w+)/gi)].map((match) => match[1]));
  const wanted = WANTED.filter((name) => listed.has(name));
  for (const name of set ? wanted.slice(0, 3) : []) await run(["performance_analyze_insight", { insightSetId: set, insightName: name }]);
  const text = texts.join("\n");
  return { calls, bytes: Buffer.byteLength(text), ms: performance.now() - started, text };
}

export default async function (): Promise<string> {
  const copy = copyBlog("bench-perf-vs");
  const scratch = mkdtempSync(join(tmpdir(), "vigie-bench-perf-"));
  const servers: Server[] = [];
  let preview: Awaited<ReturnType<typeof serveBlog>> | undefined;
  try {
    addPerfFaultPages(copy.root);
    // The article's first figure as it was before it took `priority`: lazy above the fold.
    const article = join(copy.root, "src/content/articles/en/orphan-dev-servers.mdx");
    writeFileSync(article, readFileSync(article, "utf8").replace("<Figure priority ", "<Figure "));
    const build = await runBuild(readSite(copy));
    if (!build.success) throw new Error(`build failed: ${JSON.stringify(build.errors).slice(0, 500)}`);
    preview = await serveBlog(copy.root, "preview");
    const pages: Page[] = [
      {
        label: "article, lazy first figure",
        path: "/en/articles/orphan-dev-servers/",
        element: /dev-loop/,
        source: /orphan-dev-servers\.mdx/,
      },
      { label: "lazy hero <Image>", path: "/perf/lazy-hero/", element: /dev-loop/, source: /lazy-hero\.astro/ },
      { label: "image without dimensions", path: "/perf/unsized/", element: /noise\.png/, source: /unsized\.astro/ },
      {
        label: "300 ms click handler",
        path: "/perf/busy-click/",
        element: /#busy|"Busy"/,
        source: /busy-click\.astro/,
        click: "button Busy",
      },
    ];
    const vigie = await connect("vigie", [join(ROOT, "packages/vigie/src/cli/main.ts"), "mcp"], copy.root, () => []);
    servers.push(vigie);
    const devtools = await connect(
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
        "--no-page-id-routing",
      ],
      scratch,
      () => [],
    );
    servers.push(devtools);
    const port = preview.port;
    const base = preview.url;
    const checks: Record<string, (page: Page) => Promise<Check>> = {
      vigie: (page) => vigieCheck(vigie, page, port),
      "Chrome DevTools MCP": (page) => devtoolsCheck(devtools, page, `${base}${page.path}`),
    };
    // Each server launches its Chromium once, outside the timing.
    for (const name of Object.keys(checks)) await checks[name]?.(pages[2] as Page);

    const rows: string[] = [];
    const totals = new Map<string, { element: number; source: number; of: number; calls: number[]; bytes: number[]; ms: number[] }>();
    const samples: string[] = [];
    for (const page of pages) {
      const results = new Map<string, Check[]>();
      for (let run = 0; run < RUNS; run += 1) {
        const order = run % 2 ? ["Chrome DevTools MCP", "vigie"] : ["vigie", "Chrome DevTools MCP"];
        for (const name of order) {
          const result = await (checks[name] as (page: Page) => Promise<Check>)(page);
          results.set(name, [...(results.get(name) ?? []), result]);
        }
      }
      for (const [name, list] of results) {
        const last = list.at(-1) as Check;
        const element = page.element.test(last.text);
        const source = page.source.test(last.text);
        const total = totals.get(name) ?? { element: 0, source: 0, of: 0, calls: [], bytes: [], ms: [] };
        total.element += element ? 1 : 0;
        total.source += source ? 1 : 0;
        total.of += 1;
        total.calls.push(last.calls);
        total.bytes.push(last.bytes);
        total.ms.push(median(list.map((c) => c.ms)));
        totals.set(name, total);
        rows.push(
          `| ${page.label} | ${name} | ${last.calls} | ${last.bytes} B | ${ms(median(list.map((c) => c.ms)))} | ${element ? "yes" : "no"} | ${source ? "yes" : "no"} |`,
        );
        if (name === "vigie") samples.push(`- ${page.label}: \`${last.text.replace(/\s+/g, " ").slice(0, 600)}\``);
      }
    }
    const summary = [...totals].map(([name, t]) => {
      const range = (values: number[], f: (n: number) => string) => `${f(Math.min(...values))}–${f(Math.max(...values))}`;
      return `| ${name} | ${range(t.calls, String)} | ${range(t.bytes, (b) => `${(b / 1024).toFixed(1)} KB`)} | ${range(t.ms, ms)} | ${t.element}/${t.of} | ${t.source}/${t.of} |`;
    });
    return [
      "## perf: why a page is slow, against Chrome DevTools MCP",
      "",
      `The same four faulty pages of a blog copy's production preview (its build for checking): an article whose first figure is lazy-loaded above the fold, a lazy hero \`<Image>\`, an image without dimensions above the text, a button whose click handler is busy for 300 ms. Both servers over stdio through the MCP SDK's client, each with its own headless Chromium (${CHROMIUM}, isolated), ${RUNS} rounds in alternating order, medians (${new Date().toISOString().slice(0, 10)}). vigie: one \`blog_browser_perf\` call (3 loads; with \`actions\` for the click). Chrome DevTools MCP: \`navigate_page\`, \`performance_start_trace\` (a cold reload; for the click, a trace around \`take_snapshot\` + \`click\` ended by \`performance_stop_trace\`), then \`performance_analyze_insight\` on up to three of the listed insights among ${WANTED.join(", ")}. Bytes: the text a model reads. Element: the answers name the image or button at fault; source: they name the file to change.`,
      "",
      "| page | server | calls | bytes | time | element? | source? |",
      "| --- | --- | --- | --- | --- | --- | --- |",
      ...rows,
      "",
      "| server | calls | bytes | time | element named | source named |",
      "| --- | --- | --- | --- | --- | --- |",
      ...summary,
      "",
      "vigie's answers (first 600 characters):",
      "",
      ...samples,
    ].join("\n");
  } finally {
    for (const server of servers) await disconnect(server);
    await preview?.stop();
    copy.remove();
    rmSync(scratch, { recursive: true, force: true });
  }
}
