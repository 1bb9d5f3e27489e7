// The few settings of astro.config.* that the build, lint, link and crawl tools need,
// read from its text (the config is code; importing it would run the project's
// integrations): base, trailingSlash, locales (Astro's i18n or Starlight's), and which
// integrations shape the site (a sitemap, Starlight).
import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { balanced, findCollections } from "../lint/content/collections.ts";
import type { Project } from "../project.ts";

export interface AstroSettings {
  /** The config file found, relative to the root. */
  configFile?: string;
  /** `site`, e.g. https://example.com: links to it are internal. */
  site?: string;
  /** `base`, always starting and ending with "/". */
  base: string;
  /** Absolute path of the build output folder. */
  outDir: string;
  /**
   * Locales as they appear in URLs (Astro's i18n, else Starlight's; Starlight's `root`
   * locale is the one served at the base), empty without i18n.
   */
  locales: string[];
  defaultLocale?: string;
  /** The default locale's pages are under its own folder too (Astro's routing option; Starlight without a root locale). */
  prefixDefaultLocale: boolean;
  /** `trailingSlash`: "ignore" (Astro's default), "always" or "never". */
  trailingSlash: "always" | "never" | "ignore";
  /** An integration writes a sitemap (@astrojs/sitemap, or Starlight with `site` set). */
  sitemap: boolean;
  /** The site is a Starlight documentation site: its pages live in src/content/docs. */
  starlight: boolean;
}

const CONFIG_FILES = ["astro.config.mjs", "astro.config.ts", "astro.config.mts", "astro.config.js", "astro.config.cjs"];

function stringField(text: string, name: string): string | undefined {
  const match = new RegExp(`\\b${name}\\s*:\\s*(["'\`])([^"'\`]*)\\1`).exec(text);
  return match?.[2];
}

/** Strips // and block comments, keeping strings intact enough for the regexes above. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

/** The keys of an object literal's first level: `{ root: {...}, fr: {...} }` → root, fr. */
function topLevelKeys(object: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let token = "";
  for (let i = 1; i < object.length - 1; i++) {
    const char = object[i] as string;
    if (quote) {
      if (char === quote) quote = undefined;
      else if (depth === 0) token += char;
      continue;
    }
    if (char === '"' || char === "'" || char === "`") quote = char;
    else if (char === "{" || char === "[" || char === "(") depth++;
    else if (char === "}" || char === "]" || char === ")") depth--;
    else if (depth === 0 && char === ":") {
      if (token.trim()) keys.push(token.trim());
      token = "";
    } else if (depth === 0 && char === ",") token = "";
    else if (depth === 0) token += char;
  }
  return keys;
}

/** Starlight's locales: the keys of `locales` in its options (`root` is served at the base). */
function starlightLocales(options: string): { locales: string[]; defaultLocale?: string } {
  const at = /\blocales\s*:\s*\{/.exec(options);
  if (!at) return { locales: [] };
  const keys = topLevelKeys(balanced(options, at.index + at[0].length - 1));
  const declared = stringField(options.replace(/\blocales\s*:\s*\{[\s\S]*$/, ""), "defaultLocale");
  return { locales: keys, defaultLocale: keys.includes("root") ? "root" : (declared ?? keys[0]) };
}

export function readAstroSettings(project: Project): AstroSettings {
  const configFile = CONFIG_FILES.find((name) => existsSync(join(project.root, name)));
  const text = configFile ? withoutComments(readFileSync(join(project.root, configFile), "utf8")) : "";
  const starlightCall = /\bstarlight\s*\(/.exec(text);
  const starlightOptions = starlightCall ? balanced(text, starlightCall.index + starlightCall[0].length - 1) : "";
  // Starlight's own settings (title, locales...) must not be read as Astro's.
  const astroText = starlightCall ? text.replace(starlightOptions, "()") : text;
  const base = stringField(astroText, "base") ?? "/";
  const i18nAt = /\bi18n\s*:\s*\{/.exec(astroText);
  const i18n = i18nAt ? balanced(astroText, i18nAt.index + i18nAt[0].length - 1) : "";
  const localesList = /\blocales\s*:\s*\[([^\]]*)\]/.exec(i18n)?.[1] ?? "";
  // Locales are strings or { path, codes } objects: the path is what appears in URLs.
  let locales = [...localesList.replace(/codes\s*:\s*\[[^\]]*\]/g, "").matchAll(/(["'`])([^"'`]+)\1/g)].map((match) => match[2] as string);
  let defaultLocale = stringField(i18n, "defaultLocale");
  let prefixDefaultLocale = /\bprefixDefaultLocale\s*:\s*true/.test(i18n);
  if (locales.length === 0 && starlightCall) {
    ({ locales, defaultLocale } = starlightLocales(starlightOptions));
    prefixDefaultLocale = locales.length > 0 && defaultLocale !== "root";
  }
  const trailingSlash = stringField(astroText, "trailingSlash");
  const site = stringField(astroText, "site")?.replace(/\/$/, "");
  return {
    configFile,
    site,
    base: `/${base.replace(/^\/+|\/+$/g, "")}/`.replace(/^\/\/$/, "/"),
    outDir: resolve(project.root, stringField(astroText, "outDir") ?? "dist"),
    locales: [...new Set(locales)],
    defaultLocale,
    prefixDefaultLocale,
    trailingSlash: trailingSlash === "always" || trailingSlash === "never" ? trailingSlash : "ignore",
    // Starlight adds @astrojs/sitemap itself when `site` is set.
    sitemap: /@astrojs\/sitemap/.test(text) || (Boolean(starlightCall) && site !== undefined),
    starlight: /@astrojs\/starlight/.test(text) && Boolean(starlightCall),
  };
}

/** A locale's home under the base: "/" for the default (or Starlight's root), "/fr/" else. */
export function localeHome(settings: AstroSettings, locale: string): string {
  if (locale === "root" || (locale === settings.defaultLocale && !settings.prefixDefaultLocale)) return settings.base;
  return `${settings.base}${locale}/`;
}

/** A site path written as the site serves it: `trailingSlash: "never"` drops the final slash. */
export function sitePath(settings: AstroSettings, path: string): string {
  return settings.trailingSlash === "never" && path.length > 1 ? path.replace(/\/$/, "") : path;
}

/** The routes that must answer: the home under the base, and each other locale's home. */
export function criticalRoutesOf(settings: AstroSettings): string[] {
  const homes = settings.locales.length > 1 ? settings.locales.map((locale) => localeHome(settings, locale)) : [settings.base];
  if (!homes.includes(settings.base) && !settings.prefixDefaultLocale) homes.unshift(settings.base);
  return [...new Set(homes)].map((home) => sitePath(settings, home));
}

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
}

/** What vigie knows of the site before it looks at it: shown in the report, used by every step. */
export function readSiteFacts(project: Project): SiteFacts {
  const settings = readAstroSettings(project);
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
    criticalRoutes: criticalRoutesOf(settings),
  };
}
