// What an agent pays for vigie: the sixteen tool definitions as a model receives them
// (MCP tools/list form), and the size of typical answers, measured on the blog.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sharedSession } from "../packages/vigie/src/core/browser/session/session.ts";
import { projectAt } from "../packages/vigie/src/core/project.ts";
import { toolName } from "../packages/vigie/src/tools/define.ts";
import { findTool, registry } from "../packages/vigie/src/tools/registry.ts";
import { runTool } from "../packages/vigie/src/tools/run.ts";
import { argumentsSchema } from "../packages/vigie/src/tools/schema.ts";
import { html, startPageServer } from "../packages/vigie/test/support/pages.ts";

export default async function (): Promise<string> {
  const list = registry.map((definition) => ({
    name: toolName(definition),
    description: definition.description,
    inputSchema: argumentsSchema(definition),
  }));
  const listBytes = Buffer.byteLength(JSON.stringify({ tools: list }));
  const server = await startPageServer();
  const project = projectAt(mkdtempSync(join(tmpdir(), "vigie-answers-")));
  writeFileSync(join(project.root, "package.json"), "{}");
  server.routes.set("/", { body: html("<h1>Clean</h1><p>Nothing wrong.</p>") });
  server.routes.set("/broken/", {
    body: html(
      `<img src="/missing.png" alt="x"><script src="/missing.js"></script><script>console.error("a console error"); Promise.reject(new Error("a rejection")); throw new Error("an uncaught error")</script>
         <div class="mermaid" data-mermaid-state="error"><p class="mermaid-error">Parse error on line 2: ...A --> ^ Expecting 'NODE_STRING', got 'EOF'</p></div>`,
    ),
  });
  server.routes.set("/counter/", {
    body: html(
      `<button id="more">More</button><output>0</output><script>let n = 0; document.getElementById("more").onclick = () => { n += 1; document.querySelector("output").textContent = n; if (n === 3) throw new Error("the counter broke at 3"); };</script>`,
    ),
  });
  const size = async (name: string, args: object) => {
    const tool = findTool(name);
    if (!tool) throw new Error(`no tool ${name}`);
    return Buffer.byteLength(JSON.stringify(await runTool(tool, args, { project })));
  };
  const rows: [string, number][] = [];
  try {
    rows.push(["js_errors, clean page", await size("blog_browser_js_errors", { path: "/", port: server.port })]);
    rows.push([
      "js_errors, page with 6 faults (Mermaid included)",
      await size("blog_browser_js_errors", { path: "/broken/", port: server.port }),
    ]);
    const click = { click: "button More" };
    rows.push([
      "js_errors with actions (3 clicks), the error after step 3",
      await size("blog_browser_js_errors", { path: "/counter/", port: server.port, actions: [click, click, click] }),
    ]);
    rows.push([
      "js_errors with actions, a step whose target is not on the page",
      await size("blog_browser_js_errors", { path: "/counter/", port: server.port, actions: [{ click: "button Next" }] }),
    ]);
    rows.push([
      "screenshot (a path and dimensions)",
      await size("blog_browser_screenshot", { path: "/", port: server.port, fullPage: true }),
    ]);
    rows.push(["a11y, clean page", await size("blog_browser_a11y", { path: "/", port: server.port })]);
    rows.push(["perf, 3 loads", await size("blog_browser_perf", { path: "/", port: server.port })]);
  } finally {
    await sharedSession().close();
    await server.close();
    rmSync(project.root, { recursive: true, force: true });
  }
  return [
    "## What an agent pays: tool definitions and answers",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)}. Targets (DESIGN.md): definitions at most 8 KB; js_errors at most 600 B on a clean page and 1 KB on a broken one; a screenshot answer is a path.`,
    "",
    "| what | bytes |",
    "| --- | --- |",
    `| the ${list.length} tool definitions as MCP lists them (name, description, JSON schema) | ${listBytes} |`,
    ...rows.map(([what, bytes]) => `| ${what} | ${bytes} |`),
  ].join("\n");
}
