// How a site renders, from Astro itself: `output` and the adapter from its config, and every
// route (its source file, page or endpoint, prerendered or rendered on demand) from the route
// list Astro embeds in the server bundle of a build. Where an adapter puts the prerendered
// HTML, and how a build of it can be served on this machine, follow from the adapter.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { walkFiles } from "../files.ts";
import {
  type AdapterServing,
  adapterServing,
  OUTPUT_PLATFORMS,
  type OutputKind,
  type ServeMode,
  servingDir,
} from "../production/adapters.ts";
import type { Project } from "../project.ts";
import type { AstroSettings } from "./astroConfig.ts";

export interface SiteRoute {
  /** The route as Astro writes it: "/greet/[name]". */
  route: string;
  /** Its source file, relative to the root. */
  component: string;
  type: "page" | "endpoint" | "redirect" | "fallback";
  prerender: boolean;
  /** Astro's pattern for the route's URL paths (a RegExp source, without the base). */
  pattern: string;
  params: string[];
}

export interface Rendering {
  output: "static" | "server";
  /** The adapter's package, when there is one. */
  adapter?: string;
  serve: ServeMode;
  /** Why the build is served that way, in one line. */
  serveNote: string;
  /** The folder of the prerendered HTML and the build's assets (absolute). */
  staticDir: string;
  /** With serve "output": whose build output it is. */
  outputKind?: OutputKind;
  /** The folders the build writes besides outDir (absolute): `.vercel/output`, `.netlify`. */
  buildDirs: string[];
  /** The project's routes, from the last build's server bundle; absent without a server build. */
  routes?: SiteRoute[];
  /** The file they were read from, relative to the root. */
  routesFrom?: string;
}

/** A route list is looked for in files up to this size. */
const MAX_BUNDLE_BYTES = 20_000_000;

function scriptsUnder(dir: string): string[] {
  // A Vercel function's bundle keeps the project's own path, `.vercel/` included: hidden folders are read.
  const scripts = walkFiles(dir, { skip: new Set(["node_modules"]), maxDepth: 6, hidden: true, keep: (name) => /\.m?js$/.test(name) });
  return scripts.map((path) => join(dir, path));
}

/** The JSON array that starts at `start` (a "["), read up to its closing bracket. */
function jsonArrayAt(text: string, start: number): string | undefined {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "[" || char === "{") depth++;
    else if (char === "]" || char === "}") {
      depth--;
      if (depth === 0) return text.slice(start, index + 1);
    }
  }
  return undefined;
}

interface ManifestRoute {
  routeData?: Partial<SiteRoute> & { origin?: string };
}

/** The project's routes from the route list in a server bundle's text, or undefined. */
export function routesInBundle(text: string): SiteRoute[] | undefined {
  const marker = '"routes":[{"file"';
  const at = text.indexOf(marker);
  if (at < 0) return undefined;
  const json = jsonArrayAt(text, at + '"routes":'.length);
  if (!json) return undefined;
  let list: ManifestRoute[];
  try {
    list = JSON.parse(json) as ManifestRoute[];
  } catch {
    return undefined;
  }
  return list.flatMap(({ routeData: data }) =>
    data?.route && data.component && data.origin !== "internal"
      ? [
          {
            route: data.route,
            component: data.component,
            type: data.type ?? "page",
            prerender: data.prerender === true,
            pattern: data.pattern ?? "",
            params: data.params ?? [],
          },
        ]
      : [],
  );
}

/** The routes of the last build, from the first server bundle that lists them. */
function builtRoutes(project: Project, dirs: string[]): { routes: SiteRoute[]; from: string } | undefined {
  for (const dir of dirs) {
    for (const file of scriptsUnder(dir)) {
      if (statSync(file).size > MAX_BUNDLE_BYTES) continue;
      const text = readFileSync(file, "utf8");
      const routes = text.includes('"routeData"') ? routesInBundle(text) : undefined;
      if (routes) return { routes, from: relative(project.root, file) };
    }
  }
  return undefined;
}

const short = (module: string) => module.replace(/^@astrojs\//, "");

/** Why the build is served that way, in one line; for a build output, what of it this server does not do. */
function serveNoteOf(project: Project, adapter: string, line: AdapterServing, outDir: string): string {
  if (line.serve === "preview") return `adapter ${short(adapter)}: the build is served by its own server (astro preview)`;
  if (line.serve !== "output" || !line.output) return `adapter ${short(adapter)} is not one vigie knows: pages checked on the dev server`;
  const platform = OUTPUT_PLATFORMS[line.output];
  const notes = platform.notes(project.root, outDir);
  return `adapter ${short(adapter)}: its build output (${platform.where}) served offline by vigie as ${platform.label} serves it${
    notes.length ? `; not as deployed: ${notes.join(", ")}` : ""
  }`;
}

/** How the site renders and how its build is served, from its config and its last build. */
export function readRendering(project: Project, settings: AstroSettings): Rendering {
  const { output, adapter, outDir } = settings;
  const at = (path: string) => servingDir(project.root, outDir, path);
  // An adapter vigie does not know: its prerendered pages where Astro's server builds put them.
  const line = adapterServing(adapter);
  const staticDir = existsSync(at(line.staticDir)) ? at(line.staticDir) : outDir;
  const found = builtRoutes(project, line.serverDirs.map(at));
  return {
    output,
    ...(adapter ? { adapter } : {}),
    serve: line.serve,
    serveNote: adapter ? serveNoteOf(project, adapter, line, outDir) : "a static build: served by vigie's static server",
    staticDir,
    ...(line.output ? { outputKind: line.output } : {}),
    buildDirs: line.buildDirs.map(at),
    ...(found ? { routes: found.routes, routesFrom: found.from } : {}),
  };
}

/** The route a URL path (under the base) is served by, the first whose pattern matches. */
export function routeOf(routes: SiteRoute[], base: string, pathname: string): SiteRoute | undefined {
  const path = base !== "/" && pathname.startsWith(base) ? `/${pathname.slice(base.length)}` : pathname;
  return routes.find((route) => {
    try {
      return new RegExp(route.pattern).test(path) || new RegExp(route.pattern).test(path.replace(/\/$/, ""));
    } catch {
      return false;
    }
  });
}

/** The routes rendered on demand, in a short line: "/now, /greet/[name] (pages); /api/stats.json (endpoint)". */
export function describeRoutes(routes: SiteRoute[]): string {
  const prerendered = routes.filter((route) => route.prerender).length;
  const onDemand = routes.filter((route) => !route.prerender && route.type === "page").map((route) => route.route);
  const endpoints = routes.filter((route) => route.type === "endpoint").map((route) => route.route);
  return [
    `${prerendered} prerendered`,
    `${onDemand.length} on demand${onDemand.length ? ` (${onDemand.join(", ")})` : ""}`,
    `${endpoints.length} endpoint${endpoints.length === 1 ? "" : "s"}${endpoints.length ? ` (${endpoints.join(", ")})` : ""}`,
  ].join(", ");
}

/** What the report's `site` and `vigie doctor` show of the rendering. */
export interface RenderingFacts {
  output: Rendering["output"];
  adapter?: string;
  serve: ServeMode;
  serveNote: string;
  /** Each route of the last build: its path, source file and how it renders; absent without a server build. */
  routes?: { route: string; file: string; renders: "prerendered" | "on demand" | "endpoint" | "prerendered endpoint" | "redirect" }[];
}

export function renderingFacts(rendering: Rendering): RenderingFacts {
  const renders = (route: SiteRoute): NonNullable<RenderingFacts["routes"]>[number]["renders"] =>
    route.type === "redirect"
      ? "redirect"
      : route.type === "endpoint"
        ? route.prerender
          ? "prerendered endpoint"
          : "endpoint"
        : route.prerender
          ? "prerendered"
          : "on demand";
  return {
    output: rendering.output,
    ...(rendering.adapter ? { adapter: rendering.adapter } : {}),
    serve: rendering.serve,
    serveNote: rendering.serveNote,
    ...(rendering.routes
      ? { routes: rendering.routes.map((route) => ({ route: route.route, file: route.component, renders: renders(route) })) }
      : {}),
  };
}
