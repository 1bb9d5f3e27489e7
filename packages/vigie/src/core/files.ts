// Small readers of files and URL paths that the core shares; none of them throws.
import { readFileSync, statSync } from "node:fs";
import { join, normalize, resolve, sep } from "node:path";

/** Whether a path is a regular file (false when it does not exist or cannot be read). */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A file's text, or undefined when it cannot be read. */
export function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** The percent-decoded text, or the text itself when its percent-encoding is invalid. */
export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The file a static server answers a URL path with under `root` (a resolved folder): x, then
 * x/index.html, then x.html; undefined for a path that does not decode, leaves root or finds nothing.
 */
export function servedFile(root: string, pathname: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  const target = resolve(root, `.${normalize(`/${decoded}`)}`);
  if (target !== root && !target.startsWith(`${root}${sep}`)) return undefined;
  return [target, join(target, "index.html"), `${target}.html`].find(isFile);
}
