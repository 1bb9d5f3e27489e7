// The few settings of astro.config.* that the build, lint, link and crawl tools need,
// read from its syntax tree (acorn; the config is code, and importing it would run the
// project's integrations): base, trailingSlash, locales (Astro's i18n or Starlight's), and which
// integrations shape the site (a sitemap, Starlight).
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { AnyNode, CallExpression, Program } from "acorn";
import type { Project } from "../project.ts";
import { ConfigScope, keyOf, nodesOf, parseConfigScript } from "./configScript.ts";

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
  /** Starlight's components the site replaces with its own (the keys of Starlight's `components` option: "Search", "Header"...). */
  starlightComponents?: string[];
  /** `output`: "static" (Astro's default) or "server". */
  output: "static" | "server";
  /** The module the `adapter` setting is imported from ("@astrojs/node"), when there is one. */
  adapter?: string;
}

const CONFIG_FILES = ["astro.config.mjs", "astro.config.ts", "astro.config.mts", "astro.config.js", "astro.config.cjs"];

/** The config object: `export default defineConfig({...})`, `export default {...}`, `module.exports = ...`, through constants and functions that return it. */
function configObject(program: Program, scope: ConfigScope): AnyNode | undefined {
  let exported: AnyNode | undefined;
  for (const statement of program.body) {
    if (statement.type === "ExportDefaultDeclaration") exported = statement.declaration;
    else if (statement.type === "ExpressionStatement" && statement.expression.type === "AssignmentExpression") {
      const left = statement.expression.left;
      if (left.type === "MemberExpression" && left.object.type === "Identifier" && left.object.name === "module")
        exported = statement.expression.right;
    }
  }
  const unwrap = (node: AnyNode | undefined, depth = 0): AnyNode | undefined => {
    const value = scope.value(node);
    if (!value || depth > 4) return undefined;
    if (value.type === "ObjectExpression") return value;
    if (value.type === "CallExpression") return unwrap(value.arguments[0], depth + 1);
    if (value.type === "ArrowFunctionExpression" || value.type === "FunctionExpression" || value.type === "FunctionDeclaration") {
      if (value.body.type !== "BlockStatement") return unwrap(value.body, depth + 1);
      const returned = value.body.body.find((statement) => statement.type === "ReturnStatement");
      return returned?.type === "ReturnStatement" ? unwrap(returned.argument ?? undefined, depth + 1) : undefined;
    }
    return undefined;
  };
  return unwrap(exported);
}

/** Astro's i18n: locales as they appear in URLs (a string, or the `path` of `{ path, codes }`). */
function astroLocales(
  scope: ConfigScope,
  i18n: AnyNode | undefined,
): { locales: string[]; defaultLocale?: string; prefixDefaultLocale: boolean } {
  const paths = (node: AnyNode | null | undefined): string[] => {
    const value = scope.value(node);
    if (value?.type === "ArrayExpression") return value.elements.flatMap(paths);
    if (value?.type === "SpreadElement") return paths(value.argument);
    const path = value?.type === "ObjectExpression" ? scope.string(scope.property(value, "path")) : scope.string(value);
    return path ? [path] : [];
  };
  const locales = paths(scope.property(i18n, "locales"));
  const prefix = scope.property(scope.property(i18n, "routing"), "prefixDefaultLocale");
  return {
    locales,
    defaultLocale: scope.string(scope.property(i18n, "defaultLocale")),
    prefixDefaultLocale: prefix?.type === "Literal" && prefix.value === true,
  };
}

/** Starlight's locales: the keys of `locales` in its options (`root` is served at the base). */
function starlightLocales(scope: ConfigScope, options: AnyNode | undefined): { locales: string[]; defaultLocale?: string } {
  const object = scope.property(options, "locales");
  if (object?.type !== "ObjectExpression") return { locales: [] };
  const keys = object.properties.flatMap((property) =>
    property.type === "Property" && !property.computed ? (keyOf(property.key) ?? []) : [],
  );
  const declared = scope.string(scope.property(options, "defaultLocale"));
  return { locales: keys, defaultLocale: keys.includes("root") ? "root" : (declared ?? keys[0]) };
}

/** The Starlight components the site overrides: the keys of `components` in its options. */
function starlightOverrides(scope: ConfigScope, options: AnyNode | undefined): string[] {
  const object = scope.property(options, "components");
  if (object?.type !== "ObjectExpression") return [];
  return object.properties.flatMap((property) => (property.type === "Property" && !property.computed ? (keyOf(property.key) ?? []) : []));
}

/** The call that sets Starlight up: to the name @astrojs/starlight is imported as (`starlight` when it is not imported). */
function starlightCall(program: Program, scope: ConfigScope): CallExpression | undefined {
  const name = [...scope.imports].find(([, module]) => module === "@astrojs/starlight")?.[0] ?? "starlight";
  for (const node of nodesOf(program))
    if (node.type === "CallExpression" && node.callee.type === "Identifier" && node.callee.name === name) return node;
  return undefined;
}

/** The module the `adapter` setting's call is imported from: `adapter: node({...})` → "@astrojs/node". */
function adapterOf(scope: ConfigScope | undefined, config: AnyNode | undefined): { adapter?: string } {
  const call = scope?.property(config, "adapter");
  const callee = call?.type === "CallExpression" ? call.callee : call;
  const name =
    callee?.type === "Identifier"
      ? callee.name
      : callee?.type === "MemberExpression" && callee.object.type === "Identifier"
        ? callee.object.name
        : undefined;
  const module = name ? scope?.imports.get(name) : undefined;
  return module ? { adapter: module } : call ? { adapter: "an adapter" } : {};
}

/** The settings parsed last, by project root, with the config file and text they were parsed from. */
const parsed = new Map<string, { configFile?: string; text?: string; settings: AstroSettings }>();

/**
 * The config's settings: parsed once per content of the config file (an edited, added or removed
 * config is parsed again); every reader of the config in vigie goes through here. The answer is
 * shared and frozen.
 */
export function readAstroSettings(project: Project): AstroSettings {
  const configFile = CONFIG_FILES.find((name) => existsSync(join(project.root, name)));
  let text: string | undefined;
  try {
    text = configFile ? readFileSync(join(project.root, configFile), "utf8") : undefined;
  } catch {
    // removed meanwhile: read as no config
  }
  const last = parsed.get(project.root);
  if (last && last.configFile === configFile && last.text === text) return last.settings;
  const settings = Object.freeze(parseAstroSettings(project, configFile, text));
  parsed.set(project.root, { configFile, text, settings });
  configReads++;
  return settings;
}

let configReads = 0;
/** How many times a config was parsed in this process (the cache's misses). */
export function astroConfigReads(): number {
  return configReads;
}

function parseAstroSettings(project: Project, configFile: string | undefined, text: string | undefined): AstroSettings {
  const program = configFile && text !== undefined ? parseConfigScript(configFile, text) : undefined;
  const scope = program ? new ConfigScope(program) : undefined;
  const config = program && scope ? configObject(program, scope) : undefined;
  const setting = (name: string) => scope?.string(scope.property(config, name));
  const base = setting("base") ?? "/";
  let { locales, defaultLocale, prefixDefaultLocale } = scope
    ? astroLocales(scope, scope.property(config, "i18n"))
    : { locales: [] as string[], defaultLocale: undefined, prefixDefaultLocale: false };
  const starlight = program && scope ? starlightCall(program, scope) : undefined;
  const overrides = starlight && scope ? starlightOverrides(scope, scope.value(starlight.arguments[0])) : [];
  if (locales.length === 0 && starlight && scope) {
    ({ locales, defaultLocale } = starlightLocales(scope, scope.value(starlight.arguments[0])));
    prefixDefaultLocale = locales.length > 0 && defaultLocale !== "root";
  }
  const trailingSlash = setting("trailingSlash");
  const site = setting("site")?.replace(/\/$/, "");
  const modules = new Set(scope?.imports.values());
  return {
    output: setting("output") === "server" ? "server" : "static",
    ...adapterOf(scope, config),
    configFile,
    site,
    base: `/${base.replace(/^\/+|\/+$/g, "")}/`.replace(/^\/\/$/, "/"),
    outDir: resolve(project.root, setting("outDir") ?? "dist"),
    locales: [...new Set(locales)],
    defaultLocale,
    prefixDefaultLocale,
    trailingSlash: trailingSlash === "always" || trailingSlash === "never" ? trailingSlash : "ignore",
    // Starlight adds @astrojs/sitemap itself when `site` is set.
    sitemap: modules.has("@astrojs/sitemap") || (Boolean(starlight) && site !== undefined),
    starlight: modules.has("@astrojs/starlight") && Boolean(starlight),
    ...(overrides.length ? { starlightComponents: overrides } : {}),
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
