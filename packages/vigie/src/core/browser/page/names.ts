import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";

/** A file-name-safe slug for a site path: "/en/articles/x/" → "en-articles-x", "/" → "home". */
export function slugForPath(path: string): string {
  const slug = path
    .split(/[?#]/)[0]
    ?.toLowerCase()
    .replace(/\.\.+/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80);
  return slug || "home";
}

export function timestamp(date = new Date()): string {
  return `${date.toISOString().replace(/[-:]/g, "").replace("T", "-").replace(/\..*$/, "")}-${String(date.getMilliseconds()).padStart(3, "0")}`;
}

/** Keeps only the newest `keep` PNG files of a folder. */
export function pruneOldest(dir: string, keep: number): number {
  mkdirSync(dir, { recursive: true });
  const files = readdirSync(dir)
    .filter((name) => name.endsWith(".png"))
    .map((name) => ({ path: join(dir, name), mtime: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const file of files.slice(keep)) rmSync(file.path, { force: true });
  return Math.max(0, files.length - keep);
}

/** Width and height from a PNG's header. */
export function pngSize(buffer: Buffer): { width: number; height: number } {
  return { width: buffer.readUInt32BE(16), height: buffer.readUInt32BE(20) };
}

/** A JPEG's size, read from its start-of-frame segment; 0×0 when it has none. */
export function jpegSize(buffer: Buffer): { width: number; height: number } {
  for (let at = 2; at + 9 < buffer.length; at += 2 + buffer.readUInt16BE(at + 2)) {
    if (buffer[at] !== 0xff) break;
    const marker = buffer[at + 1] ?? 0;
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { width: buffer.readUInt16BE(at + 7), height: buffer.readUInt16BE(at + 5) };
    }
  }
  return { width: 0, height: 0 };
}
