// A reader's actions on a page, vigie against Playwright MCP: the blog's Tabs with their
// keyboard navigation broken (an arrow key throws), checked by focusing the first tab and
// pressing ArrowRight. vigie: one `blog_browser_js_errors` call with `actions`. Playwright MCP:
// what an agent calls there (navigate, which answers with the page's snapshot and its refs;
// click the tab by its ref; press the key; read the console). Both over stdio through the MCP
// SDK's client on the blog's production preview, one run: calls, bytes of the answers, and
// whether they name the error and its source.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { copyBlog, runAstro, serveBlog } from "../packages/vigie/test/support/blog.ts";
import { breakTabsKeyboard } from "../packages/vigie/test/support/faults.ts";
import { connect, disconnect, playwrightMcpArgs, type Server } from "./js-errors-vs.bench.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const CHROMIUM = "/usr/bin/chromium";
const PATH = "/en/articles/small-tool-answers/";

async function call(server: Server, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await server.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as {
    content?: { type: string; text?: string }[];
    isError?: boolean;
  };
  const body = (result.content ?? []).map((part) => part.text ?? "").join("\n");
  if (result.isError) throw new Error(`${server.name} ${name}: ${body.slice(0, 300)}`);
  return body;
}

export default async function (): Promise<string> {
  const copy = copyBlog("bench-actions-vs");
  const scratch = mkdtempSync(join(tmpdir(), "vigie-bench-actions-"));
  const servers: Server[] = [];
  let preview: Awaited<ReturnType<typeof serveBlog>> | undefined;
  try {
    breakTabsKeyboard(copy.root, "tab keyboard navigation broke");
    await runAstro(copy.root, ["build"]);
    preview = await serveBlog(copy.root, "preview");
    const url = `${preview.url}${PATH}`;
    const vigie = await connect("vigie", [join(ROOT, "packages/vigie/src/cli/main.ts"), "mcp"], copy.root, () => []);
    servers.push(vigie);
    const playwright = await connect("Playwright MCP", playwrightMcpArgs(scratch), scratch, () => []);
    servers.push(playwright);

    // Each server launches its Chromium once, outside the figures.
    await call(vigie, "blog_browser_js_errors", { path: "/", port: preview.port });
    await call(playwright, "browser_navigate", { url: `${preview.url}/` });

    const ours = await call(vigie, "blog_browser_js_errors", {
      path: PATH,
      port: preview.port,
      actions: [{ focus: "tab Verbose" }, { press: "ArrowRight" }],
    });
    const theirs: { name: string; bytes: number }[] = [];
    const step = async (name: string, args: Record<string, unknown>) => {
      const text = await call(playwright, name, args);
      theirs.push({ name, bytes: Buffer.byteLength(text) });
      return text;
    };
    let snapshot = await step("browser_navigate", { url });
    // This version writes the page's snapshot to a file and links it: the agent reads that file (one more call).
    const linked = snapshot.match(/\[Snapshot\]\(([^)]+)\)/)?.[1];
    if (linked && !/\[ref=/.test(snapshot)) {
      snapshot = readFileSync(join(scratch, linked), "utf8");
      theirs.push({ name: "read of the snapshot file", bytes: Buffer.byteLength(snapshot) });
    }
    const ref = snapshot.match(/tab "Verbose"[^\n]*\[ref=(\w+)\]/)?.[1];
    if (!ref) throw new Error(`no ref for the tab "Verbose" in Playwright MCP's snapshot: ${snapshot.slice(0, 500)}`);
    // Playwright MCP has no focus: clicking the tab focuses it (and selects it, already selected).
    await step("browser_click", { element: 'tab "Verbose"', target: ref });
    await step("browser_press_key", { key: "ArrowRight" });
    const consoleText = await step("browser_console_messages", {});
    const calls = theirs.map((one) => (one.name.startsWith("read") ? one.name : `\`${one.name}\``));
    const total = theirs.reduce((sum, one) => sum + one.bytes, 0);
    const named = (text: string) => /tab keyboard navigation broke/.test(text);
    const sourced = (text: string) => /Tabs\.astro/.test(text);
    return [
      "## actions-vs: a reader's actions on a page, vigie against Playwright MCP",
      "",
      `The blog's Tabs with their keyboard navigation broken (an arrow key throws), on \`${PATH}\` of the blog's production preview: focus the first tab, press ArrowRight, read the errors. Both servers over stdio through the MCP SDK's client, each with its own warm headless Chromium (${CHROMIUM}), one run (${new Date().toISOString().slice(0, 10)}). Bytes: the text of the answers, as a model reads them.`,
      "",
      "| server | calls | answer bytes | names the error | names its source |",
      "| --- | --- | --- | --- | --- |",
      `| vigie (\`blog_browser_js_errors\` with \`actions\`) | 1 | ${Buffer.byteLength(ours)} B | ${named(ours) ? "yes" : "no"} | ${sourced(ours) ? "yes, with the step (`afterStep`)" : "no"} |`,
      `| Playwright MCP (${theirs.map((one, index) => `${calls[index]} ${one.bytes} B`).join(" + ")}) | ${theirs.length} | ${total} B | ${named(consoleText) ? "yes" : "no"} | ${sourced(consoleText) ? "yes" : "no (a built chunk's URL)"} |`,
      "",
      `vigie's answer: \`${ours.trim()}\``,
    ].join("\n");
  } finally {
    for (const server of servers) await disconnect(server);
    await preview?.stop();
    copy.remove();
    rmSync(scratch, { recursive: true, force: true });
  }
}
