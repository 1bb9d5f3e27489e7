// One GET to the local server over node:http: no connection pool (nothing stays open
// after the answer), a hard timeout, and a body read up to a cap while counting the rest.
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { LOOPBACK } from "./ports.ts";

export interface LocalResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The first `maxBodyBytes` of the body. */
  body: Buffer;
  /** The whole body's length in bytes. */
  bodyLength: number;
}

export interface LocalRequestOptions {
  timeoutMs: number;
  /** Stop after the status line and headers (a probe). */
  headersOnly?: boolean;
  maxBodyBytes?: number;
  signal?: AbortSignal;
  /** Another loopback host ("localhost", "::1"); default 127.0.0.1. */
  host?: string;
  /** Over TLS (a local server on https). */
  https?: boolean;
}

export class RequestTimeout extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
    this.name = "RequestTimeout";
  }
}

/** GET http://127.0.0.1:<port><path> (or another loopback host). Rejects on connection errors and on timeout. */
export function getLocal(port: number, path: string, options: LocalRequestOptions): Promise<LocalResponse> {
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  return new Promise((resolve, reject) => {
    const request = (options.https ? httpsRequest : httpRequest)({
      host: options.host ?? LOOPBACK,
      port,
      path,
      method: "GET",
      agent: false,
      headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8", "accept-encoding": "identity", connection: "close" },
      signal: options.signal,
    });
    const timer = setTimeout(() => request.destroy(new RequestTimeout(options.timeoutMs)), options.timeoutMs);
    const finish = (error: Error | undefined, response?: LocalResponse) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(response as LocalResponse);
    };
    request.once("error", (error) => finish(error));
    request.once("response", (response) => {
      const status = response.statusCode ?? 0;
      if (options.headersOnly) {
        response.destroy();
        request.destroy();
        finish(undefined, { status, headers: response.headers, body: Buffer.alloc(0), bodyLength: 0 });
        return;
      }
      const chunks: Buffer[] = [];
      let kept = 0;
      let total = 0;
      response.on("data", (chunk: Buffer) => {
        total += chunk.length;
        if (kept < maxBodyBytes) {
          const part = chunk.subarray(0, maxBodyBytes - kept);
          chunks.push(part);
          kept += part.length;
        }
      });
      response.once("end", () => finish(undefined, { status, headers: response.headers, body: Buffer.concat(chunks), bodyLength: total }));
      response.once("error", (error) => finish(error));
    });
    request.end();
  });
}

/** Does the server answer HTTP at all (any status) within the timeout? */
export async function answersHttp(port: number, timeoutMs: number, signal?: AbortSignal): Promise<number | undefined> {
  try {
    return (await getLocal(port, "/", { timeoutMs, headersOnly: true, signal })).status;
  } catch {
    return undefined;
  }
}
