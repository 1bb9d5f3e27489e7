// What `vigie init` and `vigie doctor` show of an Astro project: its Astro version, and of its
// Site (core/astro/site.ts) its locales, content collections and critical routes, from files only
// (nothing of the site runs).
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { findCollections } from "../../core/astro/collections.ts";
import type { Site } from "../../core/astro/site.ts";
import { installedVersion } from "../../core/packages.ts";

export interface SiteSummary {
  /** The astro.config.* file, relative to the root; absent: not an Astro project (or not yet). */
  configFile?: string;
  /** The installed astro's version, or the range package.json asks for when it is not installed. */
  astro?: { version?: string; wanted?: string };
  locales: string[];
  defaultLocale?: string;
  base: string;
  collections: { name: string; folder: string; entries: number }[];
  criticalRoutes: string[];
}

/** The range the project's package.json asks for `name`, in any of its dependency lists. */
export function wantedVersion(root: string, name: string): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
    for (const list of ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"])
      if (manifest[list]?.[name]) return manifest[list][name];
  } catch {
    // no package.json, or not JSON
  }
  return undefined;
}

/** What init and doctor show of `site`. */
export function siteSummary(site: Site): SiteSummary {
  const { project, settings } = site;
  const version = installedVersion(project.root, "astro");
  const wanted = wantedVersion(project.root, "astro");
  let collections: SiteSummary["collections"] = [];
  try {
    collections = findCollections(project).map((collection) => ({
      name: collection.name,
      folder: relative(project.root, collection.base) || ".",
      entries: collection.files.length,
    }));
  } catch {
    // an unreadable content config: no collections to name
  }
  return {
    ...(settings.configFile ? { configFile: settings.configFile } : {}),
    ...(version || wanted ? { astro: { ...(version ? { version } : {}), ...(wanted ? { wanted } : {}) } } : {}),
    locales: settings.locales,
    ...(settings.defaultLocale ? { defaultLocale: settings.defaultLocale } : {}),
    base: settings.base,
    collections,
    criticalRoutes: site.critical,
  };
}
