// The MCP face: every tool of the registry over stdio, for Claude Code, Cursor, Codex and
// any MCP client. It lists and calls; the tools do the work. The low-level Server is used
// because the argument schemas are already JSON schema (built with zod 4 from `args(z)`).
// Each tool has a title and annotations (from its definition), an output schema; each
// result has the answer as structuredContent beside its text, and a resource_link to every
// file of the answer's `files` (reports, logs, screenshots), which resources/read then reads.
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, extname, isAbsolute, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { type Answer, errorAnswer, serialize } from "../core/answer.ts";
import { sharedSession } from "../core/browser/session/session.ts";
import type { Project } from "../core/project.ts";
import { VIGIE_VERSION } from "../core/version.ts";
import type { ToolContext, ToolDefinition } from "../tools/define.ts";
import { DEFAULT_PREFIX, prefixedToolName } from "../tools/define.ts";
import { registry } from "../tools/registry.ts";
import { answerFiles } from "../tools/render.ts";
import { prefixOf, renameTools, runTool } from "../tools/run.ts";
import { answerSchema, argumentsSchema } from "../tools/schema.ts";
import { ClientSession } from "../tools/session.ts";

/**
 * MCP's defaults are the opposite of ours (not read-only, destructive, not idempotent): say
 * what differs. The spec gives destructiveHint and idempotentHint a meaning only when
 * readOnlyHint is false, so a check says readOnlyHint alone.
 */
function annotations(definition: ToolDefinition): Tool["annotations"] {
  if (definition.readOnly) return { readOnlyHint: true };
  return definition.idempotent ? { destructiveHint: false, idempotentHint: true } : { destructiveHint: false };
}

/** The tools as an MCP client lists them: name, title, description, argument and answer schemas, annotations. */
export function mcpTools(prefix: string = DEFAULT_PREFIX): Tool[] {
  return registry.map((definition) => ({
    name: prefixedToolName(definition, prefix),
    title: definition.title,
    description: renameTools(definition.description, prefix),
    inputSchema: argumentsSchema(definition),
    outputSchema: answerSchema(definition),
    annotations: annotations(definition),
  }));
}

const MIME_TYPES: Record<string, string> = {
  ".json": "application/json",
  ".png": "image/png",
  ".txt": "text/plain",
  ".log": "text/plain",
  ".xml": "application/xml",
  ".html": "text/html",
};

/** The largest file resources/read sends. */
const MAX_RESOURCE_BYTES = 8 * 1024 * 1024;

function mimeOf(path: string): { mimeType?: string } {
  const mimeType = MIME_TYPES[extname(path).toLowerCase()];
  return mimeType ? { mimeType } : {};
}

/**
 * A resource_link for each file of the answer's `files` that exists (paths relative to the
 * project root); `linked` gets their paths.
 */
function fileLinks(answer: Answer, project: Project, linked: Set<string>): CallToolResult["content"] {
  const links: CallToolResult["content"] = [];
  const seen = new Set<string>();
  for (const [role, value] of Object.entries(answerFiles(answer))) {
    const path = isAbsolute(value) ? value : resolve(project.root, value);
    if (seen.has(path) || !existsSync(path)) continue;
    seen.add(path);
    linked.add(path);
    const mimeType = MIME_TYPES[extname(path).toLowerCase()];
    links.push({
      type: "resource_link",
      uri: pathToFileURL(path).href,
      name: basename(path),
      description: `${role}: ${value}`,
      ...(mimeType ? { mimeType } : {}),
    });
  }
  return links;
}

function result(answer: Answer, project: Project, linked: Set<string>): CallToolResult {
  return {
    content: [{ type: "text", text: serialize(answer) }, ...fileLinks(answer, project, linked)],
    structuredContent: answer,
    ...("error" in answer ? { isError: true } : {}),
  };
}

/** The session of each server createMcpServer made: what its client started. */
const sessions = new WeakMap<Server, ClientSession>();

/**
 * Stops the dev servers this MCP server's client started (blog_dev_start) and has not
 * stopped; a server that was running before is left alone. Call it when the client is gone.
 */
export function closeMcpSession(server: Server): Promise<string[]> {
  return sessions.get(server)?.close() ?? Promise.resolve([]);
}

/** An MCP server over the registry; `connect` it to a transport, and `closeMcpSession` it when the client leaves. */
export function createMcpServer(project: Project, prefix: string = prefixOf(project)): Server {
  const server = new Server(
    { name: "vigie", version: VIGIE_VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        `Tools on the web project at ${project.root}: its dev server (${prefix}_dev_*), build and content checks (${prefix}_build_*), ` +
        `and pages checked in a real headless Chromium (${prefix}_browser_*). Answers are compact JSON; long output goes to a file whose path the answer gives.`,
    },
  );
  const session = new ClientSession("this MCP session");
  sessions.set(server, session);
  const tools = mcpTools(prefix);
  const byName = new Map(registry.map((definition) => [prefixedToolName(definition, prefix), definition]));

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));

  // The files answers linked (resource_link) in this session, readable with resources/read.
  const linked = new Set<string>();
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [...linked]
      .filter((path) => existsSync(path))
      .map((path) => ({ uri: pathToFileURL(path).href, name: basename(path), ...mimeOf(path) })),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    const { uri } = request.params;
    let path = "";
    try {
      path = fileURLToPath(uri);
    } catch {
      // not a file: URI
    }
    if (!linked.has(path) || !existsSync(path))
      throw new McpError(ErrorCode.InvalidParams, `${uri}: not a file an answer of this session linked (or it is gone)`);
    if (statSync(path).size > MAX_RESOURCE_BYTES)
      throw new McpError(ErrorCode.InvalidParams, `${uri}: larger than ${MAX_RESOURCE_BYTES} bytes; read it from the disk`);
    const { mimeType } = mimeOf(path);
    const content = readFileSync(path);
    return {
      contents: [
        mimeType === "image/png" || mimeType === undefined
          ? { uri, ...(mimeType ? { mimeType } : {}), blob: content.toString("base64") }
          : { uri, mimeType, text: content.toString("utf8") },
      ],
    };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args, _meta } = request.params;
    const definition = byName.get(name);
    if (!definition) {
      return result(errorAnswer(`unknown tool "${name}"`, `Call one of: ${[...byName.keys()].join(", ")}.`), project, linked);
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
    return result(await runTool(definition, args ?? {}, { project, signal: extra.signal, progress, prefix, session }), project, linked);
  });
  return server;
}

/**
 * Serves the registry on stdin/stdout until the client closes stdin or the process gets
 * SIGTERM, SIGINT or SIGHUP; then stops the dev servers this session started, closes the
 * browser and resolves.
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
      const stopped = await closeMcpSession(server);
      if (stopped.length) process.stderr.write(`vigie mcp: stopped the dev server this session started: ${stopped.join(", ")}\n`);
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
