// The first edit of a fresh session, as an agent lives it: `vigie mcp` started by an MCP client
// (the SDK's, over stdio) on a copy of the blog, blog_dev_start, the baseline (the first
// blog_dev_changes), then ONE edit of one kind, saved, and blog_dev_changes timed from the save
// to its answer; the edit undone, the dev server stopped, the client closed. SESSIONS sessions per
// kind, the kinds taken in turn so that the machine's noise falls on all alike. p50 and p95 of
// save-to-answer per kind, against the targets: component, article and schema error ≤ 3 s; layout
// and config change ≤ 8 s. Each answer is also checked for what the edit must show.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { freePort, killEverythingIn } from "../packages/vigie/test/core/devServer/helpers.ts";
import { copyBlog } from "../packages/vigie/test/support/blog.ts";
import { median, ms } from "./stats.ts";

const SESSIONS = Number(process.env.VIGIE_BENCH_SESSIONS ?? 10);
const MAIN = join(import.meta.dirname, "..", "packages", "vigie", "src", "cli", "main.ts");

interface Answer {
  applied?: string;
  reached?: number;
  pages?: { path: string; new?: unknown[] }[];
  baseline?: { pages: number; ms: number };
  error?: string;
}

interface Edit {
  kind: string;
  what: string;
  file: string;
  target: number;
  /** The edit; undefined deletes the file. */
  make?: (text: string) => string;
  /** Whether the answer shows what the edit did. */
  shows: (answer: Answer) => boolean;
}

const hasNew = (answer: Answer) => (answer.pages ?? []).some((page) => page.new?.length);

const EDITS: Edit[] = [
  {
    kind: "component",
    what: "src/views/TagsView.astro (the two tag-list pages) made to throw as it renders",
    file: "src/views/TagsView.astro",
    target: 3000,
    make: (text) => text.replace(/^---\n/, '---\nthrow new Error("the tag list is broken");\n'),
    shows: (answer) => hasNew(answer) && (answer.pages ?? []).length === 2,
  },
  {
    kind: "article",
    what: "an invalid Mermaid diagram appended to src/content/articles/en/orphan-dev-servers.mdx",
    file: "src/content/articles/en/orphan-dev-servers.mdx",
    target: 3000,
    make: (text) => `${text}\n\n\`\`\`mermaid\nflowchart TD\n  A[start --> B\n\`\`\`\n`,
    shows: hasNew,
  },
  {
    kind: "schema error",
    what: "a tag the collection's pattern refuses in src/content/articles/en/orphan-dev-servers.mdx",
    file: "src/content/articles/en/orphan-dev-servers.mdx",
    target: 3000,
    make: (text) => text.replace(/^tags: \[/m, 'tags: ["Not A Tag", '),
    shows: (answer) => /^error: .*collection schema/.test(answer.applied ?? ""),
  },
  {
    kind: "layout",
    what: "an attribute added to `<main>` in src/layouts/BaseLayout.astro (every page)",
    file: "src/layouts/BaseLayout.astro",
    target: 8000,
    make: (text) => text.replace('<main id="content"', '<main data-edit="1" id="content"'),
    shows: (answer) => (answer.reached ?? 0) >= 40,
  },
  {
    kind: "config change",
    what: "`compressHTML: false` added to astro.config.mjs (the server restarts)",
    file: "astro.config.mjs",
    target: 8000,
    make: (text) => text.replace('site: "https://vigie.dev",', 'site: "https://vigie.dev",\n  compressHTML: false,'),
    shows: (answer) => answer.applied === "restarted",
  },
  {
    kind: "deleted import",
    what: "src/components/Terminal.astro deleted (the articles' view imports it)",
    file: "src/components/Terminal.astro",
    target: 3000,
    shows: (answer) => /is imported but does not exist/.test(answer.applied ?? ""),
  },
];

/** The q-quantile of `values` (nearest rank). */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

interface Session {
  startMs: number;
  baselineMs: number;
  firstMs: number;
  bytes: number;
  shown: boolean;
  applied: string;
}

async function session(root: string, edit: Edit): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, "mcp"],
    cwd: root,
    env: { ...process.env } as Record<string, string>,
    stderr: "ignore",
  });
  const client = new Client({ name: "vigie-bench-first-edit", version: "0.0.0" });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<Answer> => {
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 300_000 });
    return (result.structuredContent ?? {}) as Answer;
  };
  const path = join(root, edit.file);
  const original = readFileSync(path, "utf8");
  try {
    let at = performance.now();
    const started = await call("blog_dev_start", { port: await freePort() });
    const startMs = performance.now() - at;
    if (started.error) throw new Error(`dev start: ${JSON.stringify(started)}`);
    at = performance.now();
    const baseline = await call("blog_dev_changes");
    const baselineMs = performance.now() - at;
    if (!baseline.baseline) throw new Error(`no baseline: ${JSON.stringify(baseline)}`);
    if (edit.make) writeFileSync(path, edit.make(original));
    else rmSync(path);
    at = performance.now();
    const answer = await call("blog_dev_changes");
    const firstMs = performance.now() - at;
    return {
      startMs,
      baselineMs,
      firstMs,
      bytes: Buffer.byteLength(JSON.stringify(answer)),
      shown: edit.shows(answer),
      applied: answer.applied ?? "",
    };
  } finally {
    writeFileSync(path, original);
    await call("blog_dev_stop").catch(() => undefined);
    await client.close();
  }
}

export default async function (): Promise<string> {
  const copy = copyBlog("bench-first-edit");
  const runs = new Map<string, Session[]>(EDITS.map((edit) => [edit.kind, []]));
  const failures: string[] = [];
  try {
    for (let round = 0; round < SESSIONS; round++) {
      for (const edit of EDITS) {
        try {
          const result = await session(copy.root, edit);
          runs.get(edit.kind)?.push(result);
          process.stdout.write(
            `  ${edit.kind} #${round + 1}: first edit ${ms(result.firstMs)} (baseline ${ms(result.baselineMs)}), ${result.shown ? "shown" : `NOT shown (${result.applied})`}\n`,
          );
        } catch (error) {
          failures.push(`${edit.kind} #${round + 1}: ${(error as Error).message.slice(0, 200)}`);
        }
      }
    }
  } finally {
    killEverythingIn(copy);
    copy.remove();
  }
  const rows = EDITS.map((edit) => {
    const list = runs.get(edit.kind) ?? [];
    const first = list.map((run) => run.firstMs);
    const p95 = quantile(first, 0.95);
    const verdict = p95 <= edit.target ? "met" : `missed by ${ms(p95 - edit.target)}`;
    const bytes = list.map((run) => run.bytes);
    return `| ${edit.kind}: ${edit.what} | ${list.length} | ${ms(median(first))} | ${ms(p95)} | ${ms(Math.max(...first))} | ${list.filter((run) => run.shown).length}/${list.length} | ${Math.min(...bytes)}-${Math.max(...bytes)} B | ≤ ${ms(edit.target)}: ${verdict} |`;
  });
  const all = [...runs.values()].flat();
  return [
    "## the first edit of a fresh session, through MCP",
    "",
    `A copy of the blog; each session is a new \`vigie mcp\` (the SDK's client over stdio): \`blog_dev_start\`, the baseline (the first \`blog_dev_changes\`), then one edit saved and \`blog_dev_changes\` timed from the save to its answer; the edit undone, \`blog_dev_stop\`, the client closed. ${SESSIONS} session${SESSIONS === 1 ? "" : "s"} per kind, the kinds in turn. Before the edit, per session: dev start median ${ms(median(all.map((run) => run.startMs)))}, baseline median ${ms(median(all.map((run) => run.baselineMs)))} (80 pages).`,
    "",
    "| first edit | sessions | p50 | p95 | max | answer shows it | answer | target (p95) |",
    "|---|---|---|---|---|---|---|---|",
    ...rows,
    ...(failures.length ? ["", `Sessions that failed: ${failures.join("; ")}`] : []),
  ].join("\n");
}
