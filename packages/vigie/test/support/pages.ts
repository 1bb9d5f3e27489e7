// A small page server on 127.0.0.1 for browser tests that need precise pages rather
// than the blog: routes are set per test.
import { once } from "node:events";
import { createServer, type Server } from "node:http";

export interface PageServer {
  port: number;
  url: string;
  routes: Map<string, { status?: number; type?: string; body: string }>;
  close(): Promise<void>;
}

export async function startPageServer(): Promise<PageServer> {
  const routes: PageServer["routes"] = new Map();
  const server: Server = createServer((request, response) => {
    const route = routes.get((request.url ?? "/").split("?")[0] ?? "/");
    if (!route) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    response.writeHead(route.status ?? 200, { "content-type": route.type ?? "text/html; charset=utf-8" }).end(route.body);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no address");
  return {
    port: address.port,
    url: `http://127.0.0.1:${address.port}`,
    routes,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close").catch(() => undefined);
    },
  };
}

/** A page with a declared icon (no favicon request) and the given body. */
export const html = (body: string, title = "page") =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><link rel="icon" href="data:,"></head><body>${body}</body></html>`;
