// Serves a static build (dist/) on 127.0.0.1 as a production host would: directory
// URLs give their index.html, unknown paths the site's 404.html with status 404.
import { once } from "node:events";
import { createReadStream, existsSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, relative, resolve } from "node:path";
import { servedFile } from "./files.ts";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".xml": "application/xml",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".gif": "image/gif",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
};

export interface StaticServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** `base` ("/docs/"): the site's pages are served under it, as Astro's `base` puts them. */
export async function serveStatic(dir: string, options: { base?: string } = {}): Promise<StaticServer> {
  const root = resolve(dir);
  const base = (options.base ?? "/").replace(/\/+$/, "");
  const server = createServer((request, response) => {
    const requested = (request.url ?? "/").split(/[?#]/)[0] ?? "/";
    const underBase = !base || requested === base || requested.startsWith(`${base}/`);
    const pathname = underBase ? requested.slice(base.length) || "/" : undefined;
    const file = pathname === undefined ? undefined : servedFile(root, pathname);
    const notFound = join(root, "404.html");
    const [path, status] = file ? [file, 200] : existsSync(notFound) ? [notFound, 404] : [undefined, 404];
    if (!path) {
      response.writeHead(404, { "content-type": "text/plain" }).end("Not found");
      return;
    }
    response.statusCode = status;
    response.setHeader("content-type", TYPES[extname(path)] ?? "application/octet-stream");
    response.setHeader("cache-control", "no-cache");
    if (request.method === "HEAD") {
      response.end();
      return;
    }
    // The headers leave with the first chunk: a file that cannot be opened or read gets a 500;
    // an error later in the file can only cut that response. Never the server.
    const stream = createReadStream(path);
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (!response.headersSent) {
        response.removeHeader("cache-control");
        response
          .writeHead(500, { "content-type": "text/plain" })
          .end(`${relative(root, path)} could not be read (${error.code ?? error.message})`);
      } else response.destroy();
    });
    // A client that goes away leaves no open file behind.
    response.on("close", () => stream.destroy());
    stream.pipe(response);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("the static server has no address");
  return {
    url: `http://127.0.0.1:${address.port}`,
    port: address.port,
    close: async () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
