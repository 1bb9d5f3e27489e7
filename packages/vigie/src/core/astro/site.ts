// The site as vigie checks it, read once: its root, the config's settings (base, outDir,
// trailingSlash, locales), how it renders (the adapter's folder of prerendered pages, its
// routes and how each renders, how the build is served). Every check and every tool reads
// these facts here rather than from the config or the adapter itself, so that an adapter or a
// new kind of site is handled in one place.
import { relative } from "node:path";
import type { ServeMode } from "../production/adapters.ts";
import type { Project } from "../project.ts";
import { type AstroSettings, criticalRoutesOf, readAstroSettings, sitePath } from "./astroConfig.ts";
import { findCollections } from "./collections.ts";
import { type Rendering, type RenderingFacts, readRendering, renderingFacts, routeOf, type SiteRoute } from "./rendering.ts";

export interface SiteFacts {
  base: string;
  trailingSlash: AstroSettings["trailingSlash"];
  /** Locales in URLs; several locales means translations are checked. */
  locales: string[];
  defaultLocale?: string;
  sitemap: boolean;
  starlight: boolean;
  /** Content collections and their folders, relative to the root. */
  collections: { name: string; folder: string; entries: number }[];
  criticalRoutes: string[];
  /** How the site renders (output, adapter, routes of the last build) and how its build is served. */
  rendering: RenderingFacts;
}

export interface Site {
  readonly project: Project;
  /** The config's settings, as read from astro.config.*. */
  readonly settings: AstroSettings;
  /** How it renders, from its config and its last build. */
  readonly rendering: Rendering;
  /** `base`, starting and ending with "/". */
  readonly base: string;
  readonly trailingSlash: AstroSettings["trailingSlash"];
  /** The build output folder (absolute). */
  readonly outDir: string;
  /** The folder of the prerendered pages and the build's assets (absolute): `outDir` for a static build, the adapter's folder else. */
  readonly staticDir: string;
  /** The routes of the last build, with their source files; absent without a server build. */
  readonly routes?: SiteRoute[];
  /** How the build is served: vigie's static server, the adapter's own (`astro preview`), vigie's server of its build output, or the dev server. */
  readonly serve: ServeMode;
  /** The home under the base and each other locale's home: the pages that must answer. */
  readonly critical: string[];
}

/**
 * The site of `project`, from its config (read through the one cache of the config: an edited
 * config is read again) and its last build. Read once per run or tool call and passed down.
 */
export function readSite(project: Project, settings: AstroSettings = readAstroSettings(project)): Site {
  const rendering = readRendering(project, settings);
  return {
    project,
    settings,
    rendering,
    base: settings.base,
    trailingSlash: settings.trailingSlash,
    outDir: settings.outDir,
    staticDir: rendering.staticDir,
    ...(rendering.routes ? { routes: rendering.routes } : {}),
    serve: rendering.serve,
    critical: criticalRoutesOf(settings),
  };
}

/** The same site after a build: its routes and folders come from the new build; the config is not read again. */
export function afterBuild(site: Site): Site {
  return readSite(site.project, site.settings);
}

/** The route rendered on demand that serves `pathname` (under the base), if any. */
export function onDemandRoute(site: Site, pathname: string): SiteRoute | undefined {
  const onDemand = site.routes?.filter((route) => !route.prerender);
  return onDemand?.length ? routeOf(onDemand, site.base, pathname) : undefined;
}

/** The route (any) that serves `pathname` (under the base), if any. */
export function routeOfPath(site: Site, pathname: string): SiteRoute | undefined {
  return site.routes ? routeOf(site.routes, site.base, pathname) : undefined;
}

/** The pages rendered on demand that take no parameter: reachable even when no link leads to them. */
export function onDemandPaths(site: Site): string[] {
  const routes = (site.routes ?? []).filter((route) => route.type === "page" && !route.prerender && route.params.length === 0);
  const base = site.base.replace(/\/$/, "");
  return routes.map((route) => sitePath(site.settings, `${base}${route.route === "/" ? "/" : `${route.route}/`}`));
}

/** The build's folders (the adapter's build output among them): stack frames in them are built code, not sources. */
export function builtDirs(site: Site): string[] {
  return [...new Set([site.staticDir, site.outDir, ...(site.rendering.buildDirs ?? [])])];
}

/** What the report and `vigie doctor` show of the site. */
export function siteFacts(site: Site): SiteFacts {
  const { settings, project } = site;
  return {
    base: settings.base,
    trailingSlash: settings.trailingSlash,
    locales: settings.locales,
    ...(settings.defaultLocale ? { defaultLocale: settings.defaultLocale } : {}),
    sitemap: settings.sitemap,
    starlight: settings.starlight,
    collections: findCollections(project).map((collection) => ({
      name: collection.name,
      folder: relative(project.root, collection.base) || ".",
      entries: collection.files.length,
    })),
    criticalRoutes: site.critical,
    rendering: renderingFacts(site.rendering),
  };
}
