// A Mermaid diagram that failed in the page, found back in the sources: the line of its
// ```mermaid fence, or of the component (`<Mermaid code={`...`} />`) that writes it.
// The diagram's text comes from the page (the blog's diagram host keeps it in a <pre>).
import { CONTENT_EXTENSIONS, fencedLines, lineAt, type SourceFile, type SourceFiles } from "./files.ts";
import { type Located, pick, unknown } from "./located.ts";

/** Whitespace collapsed, for comparing a diagram in the page with its source. */
const normalise = (text: string) => text.replace(/\s+/g, " ").trim();

/** A file's text with whitespace collapsed, and the original offset of each kept character. */
function normalisedWithOffsets(text: string): { text: string; offsets: number[] } {
  const chars: string[] = [];
  const offsets: number[] = [];
  let pendingSpace = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] ?? "";
    if (/\s/.test(char)) {
      pendingSpace = chars.length > 0;
      continue;
    }
    if (pendingSpace) {
      chars.push(" ");
      offsets.push(index - 1);
      pendingSpace = false;
    }
    chars.push(char);
    offsets.push(index);
  }
  return { text: chars.join(""), offsets };
}

/** Template-literal escapes undone (\`, \$, \\), as the component receives the text, and where each character was. */
function unescapeTemplate(text: string): { text: string; origin: number[] } {
  const chars: string[] = [];
  const origin: number[] = [];
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] ?? "";
    const next = text[index + 1];
    if (char === "\\" && (next === "`" || next === "$" || next === "\\")) {
      chars.push(next);
      origin.push(index);
      index += 1;
      continue;
    }
    chars.push(char);
    origin.push(index);
  }
  return { text: chars.join(""), origin };
}

/** The line to name for a diagram whose text starts at `line`: its fence or its tag, when just above. */
function anchorLine(file: SourceFile, offset: number): number {
  const line = lineAt(file, offset);
  const before = file.text.slice(0, offset);
  // The opening tag of a component on the same or an earlier line (`<Mermaid\n  code={`).
  const tag = before.lastIndexOf("<");
  if (tag !== -1 && !before.slice(tag).includes(">") && /^<[A-Za-z]/.test(before.slice(tag))) return lineAt(file, tag);
  const lines = file.text.split("\n");
  for (let previous = line - 1; previous >= 1 && previous >= line - 2; previous -= 1) {
    const text = lines[previous - 1] ?? "";
    if (/^\s*(`{3,}|~{3,})\s*mermaid\b/.test(text)) return previous;
    if (text.trim() !== "") break;
  }
  return line;
}

function placesIn(file: SourceFile, wanted: string): { file: string; line: number }[] {
  const places: { file: string; line: number }[] = [];
  const excluded = fencedLines(file, "mermaid");
  const unescaped = unescapeTemplate(file.text);
  const variants = [
    { text: file.text, origin: (offset: number) => offset },
    { text: unescaped.text, origin: (offset: number) => unescaped.origin[offset] ?? offset },
  ];
  for (const variant of variants) {
    // The unescaped text is tried only when the file's own text has no match.
    if (places.length > 0 || (variant.text === file.text && variant !== variants[0])) break;
    const { text, offsets } = normalisedWithOffsets(variant.text);
    for (let found = text.indexOf(wanted); found !== -1; found = text.indexOf(wanted, found + 1)) {
      const fileOffset = variant.origin(offsets[found] ?? 0);
      if (excluded.has(lineAt(file, fileOffset))) continue;
      places.push({ file: file.path, line: anchorLine(file, fileOffset) });
    }
  }
  return places;
}

/** The longest line of a diagram without characters a source may escape, trimmed. */
function longestPlainLine(code: string): string | undefined {
  const lines = code
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length >= 8 && !/[`$\\&<>]/.test(line));
  return lines.sort((a, b) => b.length - a.length)[0];
}

/**
 * The content or component file and line where a diagram is written, from its text as
 * the page holds it. Searches src/**\/*.{md,mdx,astro,...}; ties are ranked by the page's URL.
 */
export function locateDiagram(files: SourceFiles, code: string | undefined, pageUrl?: string): Located {
  const wanted = normalise(code ?? "");
  if (!wanted) return unknown("the page does not hold the diagram's text");
  // Files that hold the diagram's longest line as written are searched first; the others
  // only when none does (whitespace or escapes written differently).
  const probe = longestPlainLine(code ?? "");
  const all = [...files.files(CONTENT_EXTENSIONS)];
  const likely = probe ? all.filter((file) => file.text.includes(probe)) : all;
  let places = likely.flatMap((file) => placesIn(file, wanted));
  if (places.length === 0 && likely.length < all.length) places = all.flatMap((file) => placesIn(file, wanted));
  return pick(places, pageUrl, "diagram text");
}
