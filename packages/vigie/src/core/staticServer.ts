// Serves a static build (dist/) on 127.0.0.1 as a production host would: directory
// URLs give their index.html, unknown paths the site's 404.html with status 404.
// Caching, so that a browser kept warm between checks never shows an old file: a
// content-hashed asset (`/_astro/name.Hash.js`: a changed file gets a new name) may be kept
// (`immutable`); every other file is `no-cache` with an ETag made from its content, so the
// browser asks each time and gets a 304 only when the file is the same as now.
import { createHash } from "node:crypto";
import { once } from "node:events";
import { createReadStream, existsSync, readFile, statSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { basename, join, relative, resolve, sep } from "node:path";
import { servedFile } from "./files.ts";
import { contentType } from "./mime.ts";

/** The origins of the static servers running in this process: their caching can be trusted. */
const ORIGINS = new Set<string>();

/** Does one of vigie's static servers in this process answer at this origin? */
export function servedByVigie(origin: string): boolean {
  return ORIGINS.has(origin);
}

/** Files read whole to compute their ETag; bigger ones are streamed, `no-cache` without a validator. */
const MAX_VALIDATED_BYTES = 16 * 2 ** 20;

/** A name with a build hash before its extension, as Vite and Astro's images write them ("x.CR8zTWZa.js"). */
const HASHED = /\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9]+$/;

/** A content-hashed asset of the build: in its assets folder (`_astro/`), with a hash in its name. */
function isHashedAsset(root: string, path: string, assets: string): boolean {
  const inside = relative(root, path);
  return inside.startsWith(`${assets}${sep}`) && HASHED.test(basename(path));
}

/** From the status too: the 404 page is never confirmed in place of a page that was there. */
const etagOf = (status: number, body: Buffer) => `"${status}-${createHash("sha1").update(body).digest("base64url")}"`;

export interface StaticServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Where the server finds its files: the build's folder, the site's base, the folder of hashed assets. */
interface Site {
  root: string;
  /** The site's base without its trailing slash ("" at the root). */
  base: string;
  assets: string;
}

/** The file a request is answered with: its page, else the site's 404.html with status 404; none without a 404.html. */
function fileFor(site: Site, url: string | undefined): { path: string; status: number } | undefined {
  const requested = (url ?? "/").split(/[?#]/)[0] ?? "/";
  const underBase = !site.base || requested === site.base || requested.startsWith(`${site.base}/`);
  const pathname = underBase ? requested.slice(site.base.length) || "/" : undefined;
  const file = pathname === undefined ? undefined : servedFile(site.root, pathname);
  if (file) return { path: file, status: 200 };
  const notFound = join(site.root, "404.html");
  return existsSync(notFound) ? { path: notFound, status: 404 } : undefined;
}

/** A 500 for a file that could not be read, without the caching headers set for it. */
function cannotRead(site: Site, response: ServerResponse, path: string, error: NodeJS.ErrnoException): void {
  response.removeHeader("cache-control");
  response.removeHeader("etag");
  response
    .writeHead(500, { "content-type": "text/plain" })
    .end(`${relative(site.root, path)} could not be read (${error.code ?? error.message})`);
}

/** Answers with the file read whole: its ETag is its content's, so a file changed on disk is never answered 304. */
function sendValidated(site: Site, request: IncomingMessage, response: ServerResponse, path: string, status: number): void {
  response.setHeader("cache-control", "no-cache");
  readFile(path, (error, body) => {
    if (error) return cannotRead(site, response, path, error);
    const etag = etagOf(status, body);
    response.setHeader("etag", etag);
    const asked = request.headers["if-none-match"];
    if (asked?.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag)) {
      response.statusCode = 304;
      response.removeHeader("content-type");
      response.end();
    } else response.end(request.method === "HEAD" ? undefined : body);
  });
}

/**
 * Streams the file. The headers leave with the first chunk: a file that cannot be opened or
 * read gets a 500; an error later in the file can only cut that response. Never the server.
 */
function streamFile(site: Site, response: ServerResponse, path: string): void {
  const stream = createReadStream(path);
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (!response.headersSent) cannotRead(site, response, path, error);
    else response.destroy();
  });
  // A client that goes away leaves no open file behind.
  response.on("close", () => stream.destroy());
  stream.pipe(response);
}

/** Answers one request: its file with its type and caching, or the 404 page. */
function answer(site: Site, request: IncomingMessage, response: ServerResponse): void {
  const found = fileFor(site, request.url);
  if (!found) {
    response.writeHead(404, { "content-type": "text/plain" }).end("Not found");
    return;
  }
  const { path, status } = found;
  response.statusCode = status;
  response.setHeader("content-type", contentType(path));
  let size = 0;
  try {
    size = statSync(path).size;
  } catch {
    // read below, which says why
  }
  if (status === 200 && isHashedAsset(site.root, path, site.assets)) {
    response.setHeader("cache-control", "public, max-age=31536000, immutable");
  } else if (size <= MAX_VALIDATED_BYTES) {
    sendValidated(site, request, response, path, status);
    return;
  } else {
    response.setHeader("cache-control", "no-cache");
  }
  if (request.method === "HEAD") response.end();
  else streamFile(site, response, path);
}

/**
 * `base` ("/docs/"): the site's pages are served under it, as Astro's `base` puts them;
 * `assets`: the build's folder of content-hashed files (Astro's `build.assets`, default `_astro`);
 * `port`: the port to listen on (default: one the system gives).
 */
export async function serveStatic(dir: string, options: { base?: string; assets?: string; port?: number } = {}): Promise<StaticServer> {
  const site: Site = {
    root: resolve(dir),
    base: (options.base ?? "/").replace(/\/+$/, ""),
    assets: (options.assets ?? "_astro").replace(/^\/+|\/+$/g, ""),
  };
  const server = createServer((request, response) => answer(site, request, response));
  server.listen(options.port ?? 0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("the static server has no address");
  const url = `http://127.0.0.1:${address.port}`;
  ORIGINS.add(url);
  return {
    url,
    port: address.port,
    close: async () => {
      ORIGINS.delete(url);
      server.closeAllConnections();
      server.close();
    },
  };
}
