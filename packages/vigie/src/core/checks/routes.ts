// The route check as dev_http_get and validate's critical routes both run it: one GET over
// node:http to a server on this machine, what came back said in a few hundred bytes (status,
// title, Astro's dev error and what the server logged for it). Validate asks each critical route
// so, and asks a dev server's 5xx or silence again before it counts (a dev server may be
// restarting, or re-optimising its dependencies). Errors are returned with the route, not thrown.
import { type HttpGetOptions, type HttpGetResult, httpGet } from "../devServer/http.ts";
import type { Project } from "../project.ts";
import { sleep } from "../wait.ts";

/** How often, and how far apart, a dev server's 5xx or silence is asked again before it is a finding. */
export const DEV_RETRIES = 2;
export const DEV_RETRY_MS = 2_000;
/** How long a critical route may take to answer. */
export const ROUTE_TIMEOUT_MS = 30_000;

/** One GET on a server on this machine (the dev server's by default), as dev_http_get answers it. */
export function getRoute(project: Project, options: HttpGetOptions): Promise<HttpGetResult> {
  return httpGet(project, options);
}

export interface RouteAnswer {
  route: string;
  /** What came back, or why nothing did. */
  answer: HttpGetResult | Error;
  /** How many times it was asked again. */
  retried: number;
}

export interface RoutesOptions {
  /** How many times a 5xx or no answer is asked again; default none. */
  retries?: number;
  retryMs?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Whether a route's answer is a failure: a 4xx or 5xx, or none. */
export const routeFailed = (answer: HttpGetResult | Error): boolean => answer instanceof Error || answer.status >= 400;

/** Each route of the server at `serverUrl` (an origin, maybe with a path prefix), one after the other. */
export async function checkRoutes(
  project: Project,
  serverUrl: string,
  routes: string[],
  options: RoutesOptions = {},
): Promise<RouteAnswer[]> {
  const answers: RouteAnswer[] = [];
  for (const route of routes) answers.push(await checkRoute(project, serverUrl, route, options));
  return answers;
}

async function checkRoute(project: Project, serverUrl: string, route: string, options: RoutesOptions): Promise<RouteAnswer> {
  const server = new URL(serverUrl);
  const path = `${server.pathname.replace(/\/$/, "")}${route}`;
  for (let attempt = 0; ; attempt++) {
    const answer = await getRoute(project, {
      origin: server.origin,
      path,
      timeoutMs: options.timeoutMs ?? ROUTE_TIMEOUT_MS,
      ...(options.signal ? { signal: options.signal } : {}),
    }).catch((error: Error) => error);
    const transient = answer instanceof Error || answer.status >= 500;
    if (!routeFailed(answer) || !transient || attempt >= (options.retries ?? 0)) return { route, answer, retried: attempt };
    await sleep(options.retryMs ?? DEV_RETRY_MS, options.signal ? { signal: options.signal } : {});
  }
}
