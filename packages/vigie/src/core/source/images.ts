// An image that failed (404) or has no alt text, found back in the sources: the line of
// the Markdown `![..](path)`, the `<img src>`, the `<Figure src={x}>` that uses an
// imported file, or the import itself.
//
// URLs by origin of the image:
// - public/ files keep their path (/images/x.png): searched as written;
// - in dev, astro:assets serve /_image?href=/@fs/<absolute path>... or /@fs/... or /src/...:
//   the URL names the file, and the sources import it;
// - in a build, /_astro/<name>.<hash>.<ext> (the format may change): matched on the name.
import { dirname, posix } from "node:path";
import { safeDecode } from "../files.ts";
import { CONTENT_EXTENSIONS, fencedLines, lineAt, type SourceFile, type SourceFiles } from "./files.ts";
import { type Located, pick, unknown } from "./located.ts";

interface Wanted {
  /** Strings that, written in a source, reference the image. */
  literals: string[];
  /** Project-relative path of the image file, when the URL names it. */
  file?: string;
  /** Name without hash or extension, for a built /_astro/ asset. */
  stem?: string;
}

/** What to look for in the sources for an image URL. */
function wantedFor(root: string, imageUrl: string, pageUrl?: string): Wanted | undefined {
  let url: URL;
  try {
    url = new URL(imageUrl, pageUrl);
  } catch {
    return { literals: [imageUrl] };
  }
  const literals = [imageUrl];
  let path = safeDecode(url.pathname);
  if (path === "/_image") {
    const href = url.searchParams.get("href");
    if (href) path = safeDecode(new URL(href, url).pathname);
  }
  const fsPrefix = `/@fs${root}/`;
  if (path.startsWith(fsPrefix)) return { literals, file: path.slice(fsPrefix.length) };
  if (path.startsWith("/@fs/")) return { literals: [...literals, posix.basename(path)] };
  if (path.startsWith("/src/")) return { literals, file: path.slice(1) };
  const built = /^\/_astro\/(.+?)\.[\w-]{6,}(?:_[\w-]+)?\.\w+$/.exec(path);
  if (built) return { literals, stem: built[1] };
  const pageOrigin = pageUrl ? new URL(pageUrl).origin : url.origin;
  if (url.origin === pageOrigin) literals.push(path, url.pathname);
  return { literals: [...new Set(literals)] };
}

/** `import name from "spec"` lines of a file (outside code shown to readers): name, resolved target, line. */
function imports(file: SourceFile, skip: Set<number>): { name: string; target: string; line: number }[] {
  const found: { name: string; target: string; line: number }[] = [];
  const pattern = /^\s*import\s+([A-Za-z_$][\w$]*)\s+from\s+["']([^"']+)["']/gm;
  for (let match = pattern.exec(file.text); match; match = pattern.exec(file.text)) {
    const line = lineAt(file, match.index + match[0].indexOf("import"));
    if (skip.has(line)) continue;
    const spec = match[2] ?? "";
    const target = spec.startsWith(".") ? posix.normalize(posix.join(dirname(file.path), spec)) : spec;
    found.push({ name: match[1] ?? "", target, line });
  }
  return found;
}

/** The first line after the import that uses `name` in markup (`{name}`, `name.src`), else the import's line. */
function usageLine(file: SourceFile, name: string, importLine: number, skip: Set<number>): number {
  const lines = file.text.split("\n");
  const use = new RegExp(`[{=]\\s*${name.replace(/\$/g, "\\$")}\\b`);
  for (let index = importLine; index < lines.length; index += 1) {
    if (!skip.has(index + 1) && use.test(lines[index] ?? "")) return index + 1;
  }
  return importLine;
}

const stemOf = (path: string) => posix.basename(path).replace(/\.[^.]+$/, "");

function placesIn(file: SourceFile, wanted: Wanted): { file: string; line: number }[] {
  const skip = fencedLines(file);
  const places: { file: string; line: number }[] = [];
  if (wanted.file || wanted.stem) {
    for (const imported of imports(file, skip)) {
      const hit = wanted.file
        ? imported.target === wanted.file || imported.target.endsWith(`/${wanted.file}`)
        : stemOf(imported.target) === wanted.stem && /\.(png|jpe?g|gif|webp|avif|svg|tiff?)$/i.test(imported.target);
      if (hit) places.push({ file: file.path, line: usageLine(file, imported.name, imported.line, skip) });
    }
    if (places.length > 0) return places;
  }
  const literals = [...wanted.literals];
  if (wanted.file) literals.push(posix.basename(wanted.file));
  for (const literal of literals) {
    if (!literal) continue;
    for (let found = file.text.indexOf(literal); found !== -1; found = file.text.indexOf(literal, found + 1)) {
      const line = lineAt(file, found);
      // Only a reference: a quoted or parenthesised path, not a word inside prose.
      const before = file.text[found - 1] ?? "";
      const after = file.text[found + literal.length] ?? "";
      if (skip.has(line) || !/["'(=/]/.test(before) || /[\w.-]/.test(after)) continue;
      places.push({ file: file.path, line });
    }
    if (places.length > 0) break;
  }
  return places;
}

/** The source line that references an image, from its URL as the page requested it. */
export function locateImage(files: SourceFiles, imageUrl: string, pageUrl?: string): Located {
  const wanted = wantedFor(files.root, imageUrl, pageUrl);
  if (!wanted) return unknown("not an image URL");
  const places = [...files.files([...CONTENT_EXTENSIONS, "ts", "tsx", "jsx", "js", "vue", "svelte"])].flatMap((file) =>
    placesIn(file, wanted),
  );
  return pick(places, pageUrl, "this URL");
}
