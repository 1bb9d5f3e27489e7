// Translations (entries sharing a `key`, one per `lang`, on sites with several locales) and slugs (the ids Astro
// gives entries, and the URL slugs a localized blog builds from file names).
import { basename, extname, relative, sep } from "node:path";
import { slug } from "github-slugger";
import type { LintProblem } from "../problem.ts";

export interface Entry {
  collection: string;
  /** Absolute path, and relative to the project root. */
  path: string;
  file: string;
  /** Path relative to the collection's base. */
  entryPath: string;
  data: Record<string, unknown>;
  lineOf(path: readonly (string | number)[]): number;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** Where a translation would go: the language folder swapped, named after the key. */
function suggestedPath(entry: Entry, lang: string, from: string, key: string): string {
  const parts = entry.file.split("/");
  const at = parts.lastIndexOf(from);
  if (at < 0) return `the ${lang} translation`;
  parts[at] = lang;
  parts[parts.length - 1] = `${key}${/\.\w+$/.exec(entry.file)?.[0] ?? ".mdx"}`;
  return `the ${lang} translation (e.g. ${parts.join("/")})`;
}

/**
 * Translation pairs, only on a site with several locales (the site's own, from its
 * config): a site without i18n has no translations to miss.
 */
export function translationProblems(entries: Entry[], configuredLocales: string[]): LintProblem[] {
  const locales = configuredLocales.filter((locale) => locale !== "root");
  if (locales.length < 2) return [];
  const paired = entries.filter((entry) => text(entry.data.lang) && text(entry.data.key));
  if (paired.length === 0) return [];
  const problems: LintProblem[] = [];
  const published = paired.filter((entry) => entry.data.draft !== true);
  const byKey = new Map<string, Entry[]>();
  for (const entry of published)
    byKey.set(`${entry.collection}\0${entry.data.key}`, [...(byKey.get(`${entry.collection}\0${entry.data.key}`) ?? []), entry]);

  for (const entry of paired) {
    const lang = entry.data.lang as string;
    // An unknown lang is a frontmatter problem, reported as such; pairing it would only add noise.
    if (!locales.includes(lang)) continue;
    const key = entry.data.key as string;
    const folders = entry.entryPath.split(sep).slice(0, -1);
    const wrongFolder = folders.find((folder) => locales.includes(folder) && folder !== lang);
    /** A translation problem on the line of one of the entry's fields. */
    const report = (field: string, message: string, hint: string) =>
      problems.push({ file: entry.file, line: entry.lineOf([field]), column: 1, rule: "translation", message, hint });
    if (wrongFolder) {
      report(
        "lang",
        `lang is "${lang}" but the file is in the ${wrongFolder}/ folder`,
        `Set lang: ${wrongFolder}, or move the file to the ${lang}/ folder.`,
      );
    }
    if (entry.data.draft === true) continue;
    const siblings = byKey.get(`${entry.collection}\0${key}`) ?? [];
    const same = siblings.filter((other) => other.data.lang === lang);
    if (same.length > 1 && same[0] !== entry) {
      report(
        "key",
        `key "${key}" is already used by another ${lang} entry: ${same[0]?.file}`,
        "Give each article its own key; a translation shares the key but has another lang.",
      );
    }
    for (const locale of locales) {
      if (locale === lang || siblings.some((other) => other.data.lang === locale)) continue;
      report(
        "key",
        `no ${locale} translation: no published ${entry.collection} entry has key "${key}" and lang "${locale}"`,
        `Add ${suggestedPath(entry, locale, lang, key)} with key: ${key} and lang: ${locale}, or fix the key of the existing translation.`,
      );
    }
  }
  return problems;
}

/** The id Astro's glob loader gives an entry: its `slug` field, else each segment of its path slugged by github-slugger, as Astro does. */
export function entryId(entry: Entry): string {
  const custom = text(entry.data.slug);
  if (custom) return custom;
  const withoutExtension = entry.entryPath.slice(0, -extname(entry.entryPath).length || undefined);
  return withoutExtension
    .split(sep)
    .map((segment) => slug(segment))
    .join("/")
    .replace(/\/index$/, "");
}

export function slugProblems(entries: Entry[]): LintProblem[] {
  const problems: LintProblem[] = [];
  const seen = new Map<string, Entry>();
  const seenSlug = new Map<string, Entry>();
  for (const entry of entries) {
    const id = entryId(entry);
    const idKey = `${entry.collection}\0${id}`;
    const first = seen.get(idKey);
    const line = text(entry.data.slug) ? entry.lineOf(["slug"]) : 1;
    const report = (message: string, hint: string) =>
      problems.push({ file: entry.file, line, column: 1, rule: "duplicate-slug", message, hint });
    if (first) {
      report(
        `duplicate id "${id}" in ${entry.collection}: ${first.file} has it too, and Astro keeps only one of them`,
        "Rename one of the files (or change its slug field).",
      );
      continue;
    }
    seen.set(idKey, entry);
    // A localized blog builds each URL from the file name within its language: two of those may not meet.
    const lang = text(entry.data.lang);
    if (!lang) continue;
    const last = id.split("/").pop() ?? id;
    const slugKey = `${entry.collection}\0${lang}\0${last}`;
    const clash = seenSlug.get(slugKey);
    if (clash) {
      report(
        `slug "${last}" is also the slug of ${clash.file} (${lang}): their pages would have the same URL`,
        `Rename one of the files, e.g. ${basename(entry.file, extname(entry.file))}-2.`,
      );
    } else seenSlug.set(slugKey, entry);
  }
  return problems;
}

export function entryPathOf(base: string, path: string): string {
  return relative(base, path);
}
