// The few settings of astro.config.* that the build, lint and link tools need, read
// from its text (the config is code; importing it would run the project's integrations).
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
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
  /** i18n locales (codes), empty without i18n. */
  locales: string[];
  defaultLocale?: string;
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

export function readAstroSettings(project: Project): AstroSettings {
  const configFile = CONFIG_FILES.find((name) => existsSync(join(project.root, name)));
  const text = configFile ? withoutComments(readFileSync(join(project.root, configFile), "utf8")) : "";
  const base = stringField(text, "base") ?? "/";
  const i18n = /\bi18n\s*:\s*\{([\s\S]*?)\n\s*\}/.exec(text)?.[1] ?? "";
  const localesList = /\blocales\s*:\s*\[([^\]]*)\]/.exec(i18n)?.[1] ?? "";
  // Locales are strings or { path, codes } objects: the path is what appears in URLs.
  const locales = [...localesList.replace(/codes\s*:\s*\[[^\]]*\]/g, "").matchAll(/(["'`])([^"'`]+)\1/g)].map(
    (match) => match[2] as string,
  );
  return {
    configFile,
    site: stringField(text, "site")?.replace(/\/$/, ""),
    base: `/${base.replace(/^\/+|\/+$/g, "")}/`.replace(/^\/\/$/, "/"),
    outDir: resolve(project.root, stringField(text, "outDir") ?? "dist"),
    locales: [...new Set(locales)],
    defaultLocale: stringField(i18n, "defaultLocale"),
  };
}
