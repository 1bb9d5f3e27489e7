// How a site's build is served, decided once for every caller (validate's pages on the build,
// `dev_start --mode preview`): from the adapters' table (adapters.ts), the server and the
// folder it needs. Then the server itself, started in this process for the run that asks
// (startPlanned), or as the command of a server that outlives it (plannedCommand).
import type { Project } from "../project.ts";
import { type StaticServer, serveStatic } from "../staticServer.ts";
import { adapterServing, type OutputKind, type ServeMode, servingDir } from "./adapters.ts";
import { runnerCommand, startOutputServer } from "./outputServer.ts";
import { startPreviewServer } from "./previewServer.ts";

/** What the plan is made from (a Site has it all). */
export interface ServedSite {
  project: Project;
  /** `base`, starting and ending with "/". */
  base: string;
  /** The config's outDir (absolute). */
  outDir: string;
  /** The prerendered pages' folder (absolute). */
  staticDir: string;
  rendering: { adapter?: string };
}

/** How a build is served, and the folder (absolute) without which it cannot be. */
export type ServePlan = { adapter?: string; base: string; needs: string } & (
  | { serve: "static"; dir: string }
  | { serve: "preview" }
  | { serve: "output"; output: OutputKind; publish: string }
  | { serve: "dev" }
);

/** The plan for the site's build, from its adapter's line in the table. */
export function servePlan(site: ServedSite): ServePlan {
  const adapter = site.rendering.adapter;
  const line = adapterServing(adapter);
  const common = { ...(adapter ? { adapter } : {}), base: site.base, needs: servingDir(site.project.root, site.outDir, line.needs) };
  const serve: ServeMode = line.serve;
  if (serve === "static") return { ...common, serve, dir: site.staticDir };
  if (serve === "output" && line.output) return { ...common, serve, output: line.output, publish: site.outDir };
  if (serve === "preview") return { ...common, serve };
  return { ...common, serve: "dev" };
}

/** A server on the build; the adapter's own server and vigie's output servers also give what they logged (their server errors). */
export type BuildServer = StaticServer & { log?: () => string };

/** Starts the planned server in this process's care; undefined when the plan is the dev server. */
export function startPlanned(project: Project, plan: ServePlan, options: { timeoutMs?: number } = {}): Promise<BuildServer> | undefined {
  const { base } = plan;
  if (plan.serve === "static") return serveStatic(plan.dir, { base });
  if (plan.serve === "preview") return startPreviewServer(project, { base, ...options });
  if (plan.serve === "output") return startOutputServer(project, plan.output, { publish: plan.publish, base, ...options });
  return undefined;
}

/**
 * The command of the planned server as a process of its own, listening on `port` (a number or
 * a placeholder): vigie's static server and output servers run by outputRunner. Undefined for
 * `astro preview`, which the project's own preview script runs, and for the dev server.
 */
export function plannedCommand(project: Project, plan: ServePlan, port: number | string): string[] | undefined {
  if (plan.serve === "static") return runnerCommand(project, { kind: "static", dir: plan.dir, base: plan.base }, port);
  if (plan.serve === "output") return runnerCommand(project, { kind: plan.output, root: project.root, publish: plan.publish }, port);
  return undefined;
}
