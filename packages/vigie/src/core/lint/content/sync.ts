// The collections' JSON Schemas, written by `astro sync` (and by dev and build) to
// .astro/collections/. Missing or older than the content config: run `astro sync`.
import { existsSync, readFileSync, statSync } from "node:fs";
import type { Collection } from "../../astro/collections.ts";
import { parseBuildOutput } from "../../build/output.ts";
import { writingAstroFiles } from "../../devServer/settled.ts";
import { tailLines } from "../../process/output.ts";
import { runCommand } from "../../process/spawn.ts";
import type { Project } from "../../project.ts";
import type { JsonSchema } from "./schema.ts";

export interface Schemas {
  byCollection: Map<string, JsonSchema>;
  /** What was done or could not be done, for the answer. */
  notes: string[];
}

export const SYNC_COMMAND = ["npm", "exec", "--no", "--", "astro", "sync"];

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** `astro sync` in progress, by project root: lints started together share one. */
const syncing = new Map<string, ReturnType<typeof runCommand>>();

function sync(project: Project, signal?: AbortSignal): ReturnType<typeof runCommand> {
  const running = syncing.get(project.root);
  if (running) return running;
  // It writes .astro/ as a starting dev server does: one waits for the other.
  const run = writingAstroFiles(project, () => runCommand(SYNC_COMMAND, { cwd: project.root, timeoutMs: 120_000, signal }), {
    ...(signal ? { signal } : {}),
  })
    .then(({ value }) => value)
    .finally(() => syncing.delete(project.root));
  syncing.set(project.root, run);
  return run;
}

export async function loadSchemas(
  project: Project,
  collections: Collection[],
  configPath: string | undefined,
  signal?: AbortSignal,
): Promise<Schemas> {
  const notes: string[] = [];
  const configTime = configPath ? mtime(configPath) : 0;
  const stale = collections.filter((collection) => !existsSync(collection.schemaPath) || mtime(collection.schemaPath) < configTime);
  if (stale.length > 0 && configPath) {
    const why = stale.some((collection) => !existsSync(collection.schemaPath)) ? "missing" : "older than the content config";
    const result = await sync(project, signal);
    const ran = `ran astro sync (${Math.round(result.durationMs / 100) / 10} s): the collection schema was ${why}`;
    if (result.exitCode === 0) notes.push(ran);
    else {
      // It fails on invalid content, often after writing the schemas: the problems reported say more.
      const error = parseBuildOutput(result.output).errors[0]?.message;
      const { ended } = result;
      const reason = ended.reason === "exit" ? (error ?? tailLines(result.output, 1)[0] ?? ended.message) : ended.message;
      notes.push(`${ran}; it failed: ${reason}`);
    }
  }
  const byCollection = new Map<string, JsonSchema>();
  for (const collection of collections) {
    if (!existsSync(collection.schemaPath)) {
      notes.push(`no schema for collection "${collection.name}": frontmatter not checked`);
      continue;
    }
    try {
      byCollection.set(collection.name, JSON.parse(readFileSync(collection.schemaPath, "utf8")) as JsonSchema);
    } catch (error) {
      notes.push(`unreadable schema ${collection.schemaPath}: ${(error as Error).message}`);
    }
  }
  return { byCollection, notes };
}
