// What a change asks to check: which content files to lint (the changed ones and their
// translations), whether `astro check` must run, or everything when the change reaches
// what every check depends on (the Astro, content or vigie config) or git cannot tell.
import { existsSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { findCollections } from "../astro/collections.ts";
import { readFrontmatter } from "../astro/frontmatter.ts";
import type { Site } from "../astro/site.ts";
import { readText } from "../files.ts";
import type { Project } from "../project.ts";
import { fileAt, gitChanges } from "./git.ts";

export interface ChangePlan {
  /** Compared with ("HEAD", or the ref given); undefined when git could not tell (everything runs). */
  ref?: string;
  /** Changed files, relative to the project root (the state folder and the build left out). */
  files: string[];
  /** Those of `files` that no longer exist. */
  deleted?: string[];
  /** Content files to lint, relative to the root; undefined: lint everything. Empty: no content changed. */
  lintFiles?: string[];
  /** Whether `astro check` has anything to look at: a .ts, .tsx, .astro, script, config or lock file changed. */
  check: boolean;
  /**
   * Whether astro check must first run `astro sync` (as `astro check` does): false when the types
   * Astro generates in `.astro/` are there and no changed file can alter them (they follow the Astro
   * and content config, which make everything run, the packages, and whether an actions file exists),
   * so the check reads the same types without writing them again.
   */
  sync: boolean;
  /** Why everything runs, when it does (not in git, a config changed). */
  everything?: string;
  /** One line each: what was chosen and why, for the report. */
  notes: string[];
}

const CHECKED = /\.(ts|tsx|mts|cts|astro|js|mjs|cjs|jsx|vue|svelte)$/i;
/** Config files and the packages' lock files: a change there can change any file's types. */
const CONFIGS =
  /(^|\/)(tsconfig[^/]*\.json|package\.json|astro\.config\.\w+|package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|yarn\.lock|bun\.lockb?)$/;
/** Files every check depends on: a change there means checking everything. */
const GLOBAL = /^(astro\.config\.\w+|vigie\.config\.json|src\/content\.config\.\w+|src\/content\/config\.\w+|package\.json)$/;
const CONTENT = /\.(md|mdx|markdown|mdoc)$/i;
/** Changed files that alter the types `astro sync` writes: the packages, tsconfig, an actions file. */
const SYNCED =
  /^(package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|yarn\.lock|bun\.lockb?|tsconfig[^/]*\.json|src\/actions(\.\w+|\/.*))$/;

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

/** The plan for `vigie validate --changed [ref]`; throws a VigieError for an unknown ref. */
export function planChanges(site: Site, ref?: string): ChangePlan {
  const { project } = site;
  const changes = gitChanges(project.root, ref);
  if (!changes.git) {
    const why = `${changes.reason}: no change to compare with, everything is checked`;
    return { files: [], check: true, sync: true, everything: why, notes: [why] };
  }
  const outDir = relative(project.root, site.outDir).split(sep).join("/");
  const state = relative(project.root, project.stateDir).split(sep).join("/");
  const ours = (file: string) => [outDir, state, ".astro", "node_modules"].some((dir) => file === dir || file.startsWith(`${dir}/`));
  const files = changes.files.filter((file) => !ours(file));
  const against = changes.ref === "HEAD" ? "the working tree against HEAD" : `the working tree against ${changes.ref}`;
  const global = files.find((file) => GLOBAL.test(file));
  if (global) {
    const why = `${global} changed: everything is checked`;
    return {
      ref: changes.ref,
      files,
      check: true,
      sync: true,
      everything: why,
      notes: [`${plural(files.length, "changed file")} (${against})`, why],
    };
  }
  const check = files.some((file) => CHECKED.test(file) || CONFIGS.test(file));
  const generated = existsSync(join(project.root, ".astro", "types.d.ts"));
  const sync = !generated || files.some((file) => SYNCED.test(file));
  const lintFiles = contentToLint(project, changes.ref, files, new Set(changes.deleted));
  const notes = [
    `${plural(files.length, "changed file")} (${against})${files.length ? `: ${files.slice(0, 5).join(", ")}${files.length > 5 ? ", …" : ""}` : ""}`,
    lintFiles.length
      ? `lint: ${plural(lintFiles.length, "content file")} (the changed ones and their translations)`
      : "lint: skipped, no content file changed",
    check
      ? `astro check: a .ts, .astro, script, config or lock file changed${sync ? "" : " (on the types .astro/ holds: no change can alter them)"}`
      : "astro check: skipped, no .ts, .tsx, .astro or config file changed",
  ];
  const deleted = changes.deleted.filter((file) => !ours(file));
  return { ref: changes.ref, files, ...(deleted.length ? { deleted } : {}), lintFiles, check, sync, notes };
}

/** Changed content files that still exist, and the translations (same collection and key) of every changed one. */
function contentToLint(project: Project, ref: string, files: string[], deleted: Set<string>): string[] {
  const changed = files.filter((file) => CONTENT.test(file));
  if (changed.length === 0) return [];
  const collections = findCollections(project);
  const rel = (path: string) => relative(project.root, path).split(sep).join("/");
  const keyOf = (text: string | undefined) => {
    if (text === undefined) return undefined;
    const data = readFrontmatter(text).data;
    return typeof data?.key === "string" && data.key ? data.key : undefined;
  };
  const wanted = new Set(changed.filter((file) => !deleted.has(file)));
  for (const collection of collections) {
    const inside = (file: string) => !relative(collection.base, `${project.root}/${file}`).startsWith("..");
    const keys = new Set<string>();
    for (const file of changed.filter(inside)) {
      // A deleted entry's key is read from the ref: its translations now lack it.
      const key = keyOf(deleted.has(file) ? fileAt(project.root, ref, file) : readText(`${project.root}/${file}`));
      if (key) keys.add(key);
    }
    if (keys.size === 0) continue;
    for (const path of collection.files) {
      const key = keyOf(readText(path));
      if (key && keys.has(key)) wanted.add(rel(path));
    }
  }
  return [...wanted].sort();
}
