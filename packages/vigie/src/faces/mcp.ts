// The MCP face: every tool of the registry over stdio, for Claude Code, Cursor, Codex and
// any MCP client. It lists and calls; the tools do the work. The low-level Server is used
// because the argument schemas are already JSON schema (built with zod 4 from `args(z)`).
import { readFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { type Answer, errorAnswer, serialize } from "../core/answer.ts";
import { sharedSession } from "../core/browser/session.ts";
import type { Project } from "../core/project.ts";
import type { ToolContext } from "../tools/define.ts";
import { toolName } from "../tools/define.ts";
import { registry } from "../tools/registry.ts";
import { runTool } from "../tools/run.ts";
import { argumentsSchema } from "../tools/schema.ts";

const VERSION = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

/** The tools as an MCP client lists them: name, description, JSON schema of the arguments. */
export function mcpTools(): Tool[] {
  return registry.map((definition) => ({
    name: toolName(definition),
    description: definition.description,
    inputSchema: argumentsSchema(definition),
  }));
}

function result(answer: Answer): CallToolResult {
  return { content: [{ type: "text", text: serialize(answer) }], ...("error" in answer ? { isError: true } : {}) };
}

/** An MCP server over the registry; `connect` it to a transport. */
export function createMcpServer(project: Project): Server {
  const server = new Server(
    { name: "vigie", version: VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        `Tools on the web project at ${project.root}: its dev server (blog_dev_*), build and content checks (blog_build_*), ` +
        "and pages checked in a real headless Chromium (blog_browser_*). Answers are compact JSON; long output goes to a file whose path the answer gives.",
    },
  );
  const tools = mcpTools();
  const byName = new Map(registry.map((definition) => [toolName(definition), definition]));

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args, _meta } = request.params;
    const definition = byName.get(name);
    if (!definition) {
      return result(errorAnswer(`unknown tool "${name}"`, `Call one of: ${[...byName.keys()].join(", ")}.`));
    }
    const token = _meta?.progressToken;
    let sent = 0;
    const progress: ToolContext["progress"] =
      token === undefined
        ? undefined
        : (message, detail) => {
            // MCP wants progress to grow with each notification.
            const value = detail?.done ?? sent + 1;
            if (value <= sent) return;
            sent = value;
            extra
              .sendNotification({
                method: "notifications/progress",
                params: { progressToken: token, progress: value, ...(detail?.total !== undefined ? { total: detail.total } : {}), message },
              })
              .catch(() => undefined);
          };
    return result(await runTool(definition, args ?? {}, { project, signal: extra.signal, progress }));
  });
  return server;
}

/**
 * Serves the registry on stdin/stdout until the client closes stdin or the process gets
 * SIGTERM, SIGINT or SIGHUP; then closes the browser and resolves.
 */
export async function serveMcp(project: Project): Promise<void> {
  // stdout carries the protocol: anything else printed goes to stderr.
  console.log = console.info = console.debug = console.error;
  const server = createMcpServer(project);
  const transport = new StdioServerTransport();
  const { promise: done, resolve } = Promise.withResolvers<void>();
  let closing = false;
  const close = (reason: string) => {
    if (closing) return;
    closing = true;
    process.stderr.write(`vigie mcp: ${reason}, closing\n`);
    void (async () => {
      await server.close().catch(() => undefined);
      await sharedSession()
        .close()
        .catch(() => undefined);
      resolve();
    })();
  };
  // Listeners stay (not `once`): a second signal while closing must not kill us midway.
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => close(signal));
  process.stdin.on("end", () => close("stdin closed"));
  process.stdin.on("close", () => close("stdin closed"));
  server.onclose = () => close("connection closed");
  await server.connect(transport);
  return done;
}
