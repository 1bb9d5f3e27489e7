// The source maps vigie's build for checking kept out of the output (build/checkBuild.ts):
// one file per script the browser runs, named by a hash of the script's text, under
// .opencode/build/maps/. A stack frame in a built chunk (/_astro/x.HASH.js) or in a script
// Astro inlined into the HTML maps back through them to the source file and line; an
// island's chunk names the component file it was built from.
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type MapResult, sourceMapConsumer } from "./sourceMaps.ts";

/** A map as the build for checking keeps it: sources relative to the project root (queries kept). */
export interface HiddenMap {
  version: 3;
  /** The chunk's output file, relative to the root. */
  file: string;
  /** The module the chunk was built from (an island's component, a page's script), relative to the root. */
  entry?: string;
  /** Lines trimmed from the start of a script inlined into the HTML. */
  skipLines: number;
  sources: string[];
  sourcesContent: (string | null)[];
  names: string[];
  mappings: string;
}

export function hiddenMapsDir(root: string): string {
  return join(root, ".opencode", "build", "maps");
}

/** The key of a script's text: as served in a file, or as written between `<script>` tags. */
export function scriptKey(text: string): string {
  return createHash("sha256").update(text.trim()).digest("hex").slice(0, 32);
}

const cache = new Map<string, { mtimeMs: number; map: HiddenMap | undefined }>();

/** The kept map of a script's text, or undefined (no build for checking, or not a script it built). */
export function hiddenMap(root: string, text: string): HiddenMap | undefined {
  const path = join(hiddenMapsDir(root), `${scriptKey(text)}.json`);
  let mtimeMs: number;
  try {
    mtimeMs = statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
  const cached = cache.get(path);
  if (cached && cached.mtimeMs === mtimeMs) return cached.map;
  let map: HiddenMap | undefined;
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as HiddenMap;
    map = parsed && typeof parsed.mappings === "string" && Array.isArray(parsed.sources) ? parsed : undefined;
  } catch {
    map = undefined;
  }
  if (cache.size > 200) cache.clear();
  cache.set(path, { mtimeMs, map });
  return map;
}

/** A project path with its query (`src/X.astro?astro&type=script&index=0&lang.ts`) as a file URL under the root. */
function fileUrl(root: string, source: string): string {
  if (/^[a-z]+:/i.test(source) || source.startsWith("\0")) return source;
  const [path = "", ...query] = source.split("?");
  const absolute = new URL(`file://${root.split("\\").join("/")}/`);
  const url = new URL(path, absolute);
  return `${url.href}${query.length ? `?${query.join("?")}` : ""}`;
}

/**
 * Where a position (1-based line and column, as in a stack; for an inline script, counted
 * from the script's first line) of the script whose text is `text` comes from.
 * Undefined when no kept map has that text.
 */
export async function hiddenPosition(root: string, text: string, line: number, column: number): Promise<MapResult | undefined> {
  const map = hiddenMap(root, text);
  if (!map) return undefined;
  const Consumer = await sourceMapConsumer();
  if (!Consumer) return { noMap: "source-map-js is not installed" };
  try {
    const consumer = new Consumer(JSON.stringify({ ...map, file: undefined, entry: undefined }));
    const mapped = consumer.originalPositionFor({ line: line + map.skipLines, column: Math.max(0, column - 1) });
    if (!mapped.source || !mapped.line) return { noMap: "the kept source map has no mapping for that position" };
    const content = consumer.sourceContentFor(mapped.source, true) ?? undefined;
    return { position: { source: fileUrl(root, mapped.source), line: mapped.line, ...(content ? { content } : {}) } };
  } catch {
    return { noMap: "the kept source map could not be read" };
  }
}

/** The module a built chunk was made from (an island's component), relative to the root. */
export function hiddenEntry(root: string, text: string): string | undefined {
  const entry = hiddenMap(root, text)?.entry;
  return entry && !entry.startsWith("..") && !entry.includes("node_modules/") ? entry : undefined;
}

/** The inline `<script>` of an HTML page that holds a position (1-based line and column of the page). */
export function inlineScriptAt(html: string, line: number, column: number): { text: string; line: number; column: number } | undefined {
  const lineStarts = [0];
  for (let index = html.indexOf("\n"); index !== -1; index = html.indexOf("\n", index + 1)) lineStarts.push(index + 1);
  const start = lineStarts[line - 1];
  if (start === undefined) return undefined;
  const offset = start + column - 1;
  const pattern = /<script\b[^>]*>([\s\S]*?)<\/script>/gi;
  for (let match = pattern.exec(html); match; match = pattern.exec(html)) {
    const contentStart = match.index + match[0].indexOf(">") + 1;
    const content = match[1] ?? "";
    if (offset < contentStart || offset > contentStart + content.length) continue;
    // Position within the script as written, then within its trimmed text.
    const lead = /^\s*/.exec(content)?.[0] ?? "";
    const textStart = contentStart + lead.length;
    const before = html.slice(textStart, Math.max(textStart, offset));
    const newlines = before.split("\n").length - 1;
    const lastNewline = before.lastIndexOf("\n");
    return {
      text: content,
      line: newlines + 1,
      column: lastNewline === -1 ? offset - textStart + 1 : before.length - lastNewline,
    };
  }
  return undefined;
}
