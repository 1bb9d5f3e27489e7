// A page error or console error, back to its original file and line:
// - in dev, a frame's URL names the module (/src/components/X.astro?astro&type=script&index=0&lang.ts,
//   /src/scripts/x.ts) and Vite serves its source map inline;
// - in a build, a chunk under /_astro/ maps back only if the build emitted source maps;
// - a script written inline in the page is found by its own text in the sources.
import { CONTENT_EXTENSIONS, lineAt, type SourceFile, type SourceFiles } from "./files.ts";
import { hiddenPosition, inlineScriptAt } from "./hiddenMaps.ts";
import { at, type Located, pick, unknown } from "./located.ts";
import { type FetchText, type MapResult, originalPosition } from "./sourceMaps.ts";

export interface StackFrame {
  url: string;
  /** 1-based, as V8 prints it. */
  line: number;
  /** 1-based, as V8 prints it. */
  column: number;
}

const MAX_FRAMES = 8;

/** The frames of a V8 stack ("    at fn (url:line:col)" or "    at url:line:col"). */
export function parseStack(stack: string | undefined): StackFrame[] {
  const frames: StackFrame[] = [];
  for (const line of (stack ?? "").split("\n")) {
    const match = /^\s+at (?:.*? \()?(\S+?):(\d+):(\d+)\)?\s*$/.exec(line);
    if (match?.[1]) frames.push({ url: match[1], line: Number(match[2]), column: Number(match[3]) });
    if (frames.length >= MAX_FRAMES) break;
  }
  return frames;
}

function urlOf(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** A project file for a URL path or an absolute path, or undefined. */
function projectFile(files: SourceFiles, path: string): string | undefined {
  const decoded = (() => {
    try {
      return decodeURIComponent(path);
    } catch {
      return path;
    }
  })();
  const candidates = [decoded.replace(/^\/@fs/, ""), decoded];
  for (const candidate of candidates) {
    if (candidate.startsWith(`${files.root}/`)) return candidate.slice(files.root.length + 1);
  }
  const inSrc = decoded.indexOf("/src/");
  if (inSrc !== -1) {
    const relative = decoded.slice(inSrc + 1);
    if (files.read(relative)) return relative;
  }
  return undefined;
}

/** Script blocks of an .astro file that Astro processes (not `is:inline`), with the offset of their first non-blank character. */
function processedScripts(file: SourceFile): { start: number; end: number }[] {
  const scripts: { start: number; end: number }[] = [];
  const pattern = /<script\b([^>]*)>([\s\S]*?)<\/script>/g;
  for (let match = pattern.exec(file.text); match; match = pattern.exec(file.text)) {
    const [tag, attributes = "", content = ""] = match;
    if (/\bis:inline\b/.test(attributes)) continue;
    const contentStart = match.index + tag.indexOf(">") + 1;
    const leading = /^\s*/.exec(content)?.[0].length ?? 0;
    scripts.push({ start: contentStart + leading, end: contentStart + content.length });
  }
  return scripts;
}

/**
 * A line as code, whatever its quotes, semicolons and spacing: Astro's compiler rewrites
 * `throw new Error('boom')` as `throw new Error("boom");`.
 */
export function codeLine(line: string): string {
  return line
    .trim()
    .replace(/["'`]/g, '"')
    .replace(/\s+/g, " ")
    .replace(/\s*([(){}[\],;=:+*/<>!?&|-])\s*/g, "$1")
    .replace(/;+$/, "");
}

/** The .astro line of line `line` of its `index`-th processed script, checked against the script's text. */
function astroScriptLine(file: SourceFile, index: number, line: number, content: string | undefined): number | undefined {
  const script = processedScripts(file)[index];
  if (!script) return undefined;
  const first = lineAt(file, script.start);
  const candidate = first + line - 1;
  const raw = content?.split("\n")[line - 1];
  const expected = raw === undefined ? "" : codeLine(raw);
  if (!expected) return candidate;
  const lines = file.text.split("\n").map(codeLine);
  if (lines[candidate - 1] === expected) return candidate;
  // The compiler may have reformatted the script: find the same text nearest to the candidate.
  const last = lineAt(file, script.end);
  let best: number | undefined;
  for (let number = first; number <= last; number += 1) {
    if (lines[number - 1] === expected && (best === undefined || Math.abs(number - candidate) < Math.abs(best - candidate))) best = number;
  }
  return best;
}

/** A frame in a module of the project (a URL under /src/ or /@fs/ of the root), mapped to its source. */
async function moduleFrame(files: SourceFiles, frame: StackFrame, fetchText: FetchText): Promise<Located> {
  let mapped = await originalPosition(frame.url, frame.line, frame.column, fetchText);
  const url = urlOf(frame.url);
  if (!url) return unknown("no URL in the stack frame");
  if ("noMap" in mapped) {
    // A built chunk without a map in the output: the map vigie's build for checking kept.
    const script = await fetchText(frame.url);
    const kept = script === undefined ? undefined : await hiddenPosition(files.root, script, frame.line, frame.column);
    if (kept) mapped = kept;
  }
  if ("noMap" in mapped) {
    const file = projectFile(files, url.pathname);
    // Vite serves plain .js modules as they are written: the position is the source's.
    if (file && /\.(m?js|cjs)$/.test(file) && !url.search) return at(file, frame.line);
    return unknown(`${url.pathname}: ${mapped.noMap}`);
  }
  return mappedFrame(files, mapped);
}

/** A mapped position in the project's sources, as a file and line (a processed script of an .astro file to its line there). */
function mappedFrame(files: SourceFiles, mapped: MapResult): Located {
  if ("noMap" in mapped) return unknown(mapped.noMap);
  const original = urlOf(mapped.position.source);
  const path = original ? original.pathname : mapped.position.source;
  const file = projectFile(files, path);
  if (!file) return unknown(`maps to ${path.slice(-80)}, outside the project's src/`);
  // A framework's own code (its error handler's console.error, React's hydration check) is not the line to fix.
  if (/(^|\/)node_modules\//.test(file)) return unknown(`maps to ${file.slice(-80)}, a dependency`);
  const script = /[?&]type=script&index=(\d+)/.exec(original?.search ?? "");
  if (script && file.endsWith(".astro")) {
    const source = files.read(file);
    const line = source && astroScriptLine(source, Number(script[1]), mapped.position.line, mapped.position.content);
    return line ? at(file, line) : unknown(`script ${Number(script[1]) + 1} of ${file} not found`);
  }
  return at(file, mapped.position.line);
}

/** A frame in a script written inline in the page: its text, searched in the sources. */
async function inlineFrame(files: SourceFiles, frame: StackFrame, pageUrl: string, fetchText: FetchText): Promise<Located> {
  const html = await fetchText(pageUrl);
  const line = html?.split("\n")[frame.line - 1];
  if (html === undefined || line === undefined) return unknown("an inline script of the page, which could not be fetched again");
  // A script the build inlined: the map vigie's build for checking kept for its text.
  const script = inlineScriptAt(html, frame.line, frame.column);
  const kept = script && (await hiddenPosition(files.root, script.text, script.line, script.column));
  if (kept) return mappedFrame(files, kept);
  let snippet = (line.slice(Math.max(0, frame.column - 1)).split("</script>")[0] ?? "").trim().slice(0, 80);
  if (snippet.length < 8) snippet = line.trim().slice(0, 80);
  if (snippet.length < 8) return unknown("an inline script of the page, too short to find");
  const places = findText(files, snippet);
  if (places.length) return pick(places, pageUrl, "inline script text");
  // A minified script (a build inlines small scripts, rewritten): its string literals at the
  // error's position, written with any quotes, are what the sources still hold.
  const rest = (line.slice(Math.max(0, frame.column - 1)).split("</script>")[0] ?? "").slice(0, 300);
  for (const literal of literalsOf(rest)) {
    const found = ['"', "'", "`"].flatMap((quote) => findText(files, `${quote}${literal}${quote}`));
    if (found.length) return pick(found, pageUrl, `the inline script's text "${literal.slice(0, 40)}"`);
  }
  return unknown("inline script text not found in src/");
}

/** Where `text` occurs in the project's pages, components and scripts. */
function findText(files: SourceFiles, text: string): { file: string; line: number }[] {
  const places: { file: string; line: number }[] = [];
  for (const file of files.files([...CONTENT_EXTENSIONS, "ts", "js", "tsx", "jsx", "vue", "svelte"])) {
    for (let found = file.text.indexOf(text); found !== -1; found = file.text.indexOf(text, found + 1)) {
      places.push({ file: file.path, line: lineAt(file, found) });
    }
  }
  return places;
}

/** The string literals of a piece of code, 8 characters or more, without escapes, first first. */
function literalsOf(code: string): string[] {
  return [...code.matchAll(/(["'`])((?:(?!\1)[^\\\n]){8,200})\1/g)].map((match) => match[2] ?? "");
}

async function locateFrame(files: SourceFiles, frame: StackFrame, pageUrl: string, fetchText: FetchText): Promise<Located> {
  const url = urlOf(frame.url);
  const page = urlOf(pageUrl);
  if (!url || !page) return unknown(`no URL in the stack frame`);
  if (url.origin !== page.origin) return unknown(`a script from ${url.origin}`);
  if (url.pathname === page.pathname) return inlineFrame(files, frame, pageUrl, fetchText);
  // Another page of the site (a script run after an in-site navigation): an inline script of that page.
  if (url.pathname.endsWith("/") || url.pathname.endsWith(".html"))
    return inlineFrame(files, frame, `${url.origin}${url.pathname}`, fetchText);
  return moduleFrame(files, frame, fetchText);
}

/** Frames of the project's own code first: a dependency's frame says less than the caller's. */
function ranked(frames: StackFrame[]): StackFrame[] {
  const own = (frame: StackFrame) => !/\/node_modules\/|\/@vite\/|\/@id\/|^(?!https?:)/.test(frame.url);
  return [...frames.filter(own), ...frames.filter((frame) => !own(frame))];
}

/** The original file and line of an error, from its stack frames (top first). */
export async function locateStack(files: SourceFiles, frames: StackFrame[], pageUrl: string, fetchText: FetchText): Promise<Located> {
  if (frames.length === 0) return unknown("no stack");
  let first: Located | undefined;
  for (const frame of ranked(frames).slice(0, 4)) {
    const located = await locateFrame(files, frame, pageUrl, fetchText).catch(() => unknown("the stack could not be mapped"));
    if ("source" in located) return located;
    first ??= located;
  }
  return first ?? unknown("no stack");
}
