// The articles of a blog copy, and faults appended to them at known lines.
import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface Article {
  lang: "fr" | "en";
  /** Relative to the copy's root. */
  file: string;
  slug: string;
  key: string;
  /** The page the build makes of it. */
  route: string;
}

export function articles(root: string): Article[] {
  const list: Article[] = [];
  for (const lang of ["fr", "en"] as const) {
    const dir = join(root, "src", "content", "articles", lang);
    for (const name of readdirSync(dir)
      .filter((n) => n.endsWith(".mdx"))
      .sort()) {
      const source = readFileSync(join(dir, name), "utf8");
      const key = /^key:\s*(\S+)/m.exec(source)?.[1] ?? "";
      const slug = name.slice(0, -4);
      list.push({
        lang,
        file: `src/content/articles/${lang}/${name}`,
        slug,
        key,
        route: `${lang === "fr" ? "" : "/en"}/articles/${slug}/`,
      });
    }
  }
  return list;
}

/** Appends `text` as a new block at the end of a file; returns the line its first line lands on. */
export function appendBlock(root: string, file: string, text: string): number {
  const path = join(root, file);
  const source = readFileSync(path, "utf8");
  const separator = source.endsWith("\n") ? "\n" : "\n\n";
  appendFileSync(path, `${separator}${text}\n`);
  return `${source}${separator}`.split("\n").length;
}

/** The 1-based line of the first line of `file` that matches. */
export function lineOf(root: string, file: string, pattern: RegExp): number {
  const index = readFileSync(join(root, file), "utf8")
    .split("\n")
    .findIndex((line) => pattern.test(line));
  if (index < 0) throw new Error(`${pattern} not found in ${file}`);
  return index + 1;
}
