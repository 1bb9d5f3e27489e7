// Which local page a browser check looks at: a path on the dev server (or a port or
// base URL given), never another host. Shared by every page check.
import { VigieError } from "../answer.ts";
import { StepError } from "../nextStep.ts";
import type { Project } from "../project.ts";
import { checkPath, readDevPort } from "./index.ts";

export interface TargetOptions {
  /** Site path, starting with "/". */
  path?: string;
  /** Port on 127.0.0.1; default: the running dev server's, from .opencode/dev-server.port. */
  port?: number;
  /** A server on this machine, e.g. http://127.0.0.1:4322 (a preview); overrides port. */
  baseUrl?: string;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/** The base URL (no trailing slash) of the server to check. */
export function resolveBaseUrl(project: Project, options: TargetOptions): string {
  if (options.baseUrl) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new VigieError(
        `invalid baseUrl ${JSON.stringify(options.baseUrl)}`,
        "Pass an http URL of a server on this machine, e.g. http://127.0.0.1:4322.",
        { argument: "baseUrl" },
      );
    }
    if (!/^https?:$/.test(url.protocol) || !LOOPBACK_HOSTS.has(url.hostname)) {
      throw new VigieError(
        `baseUrl ${url.origin} is not a server on this machine`,
        "Only loopback servers are checked: http://127.0.0.1:PORT or http://localhost:PORT.",
        { argument: "baseUrl" },
      );
    }
    return `${url.origin}${url.pathname.replace(/\/$/, "")}`;
  }
  const port = options.port ?? readDevPort(project);
  if (port === undefined) {
    throw new StepError(
      "no server to check: the dev server is not running and no port was given",
      "no-server-to-check",
      "Start the dev server (or pass port for a server already running on 127.0.0.1).",
    );
  }
  return `http://127.0.0.1:${port}`;
}

export function resolvePageUrl(project: Project, options: TargetOptions): string {
  const path = options.path ?? "/";
  checkPath(path);
  return `${resolveBaseUrl(project, options)}${path}`;
}
