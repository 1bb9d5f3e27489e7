// Pages that break in the browser in one known way each, added to a copy of the blog.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const page = (title: string, body: string) =>
  `---\n---\n<html lang="en"><head><meta charset="utf-8" /><title>${title}</title><link rel="icon" href="data:," /></head><body><main><h1>${title}</h1>${body}</main></body></html>\n`;

/** Fault pages under /faults/, keyed by what they break. */
export const FAULT_PAGES = {
  throw: page("throw", `<script is:inline>throw new Error("client script failed on purpose");</script>`),
  rejection: page("rejection", `<script is:inline>Promise.reject(new Error("promise rejected on purpose"));</script>`),
  console: page("console", `<script is:inline>console.error("logged an error on purpose");</script>`),
  "missing-image": page("missing image", `<img src="/images/not-there.png" alt="a picture that is not there" width="10" height="10" />`),
  "missing-script": page("missing script", `<script is:inline src="/scripts/not-there.js"></script>`),
  "no-alt": page("no alt", `<img src="/favicon.svg" width="32" height="32" />`),
  clean: page("clean", `<p>Nothing wrong here.</p>`),
} as const;

export type FaultPage = keyof typeof FAULT_PAGES;

/** A diagram that mermaid's parser rejects. */
export const INVALID_FLOWCHART = "```mermaid\nflowchart TD\n  A[Start] --> B{Decide\n  B -->|yes| C[Done\n```\n";

export function addFaultPages(root: string): void {
  const dir = join(root, "src", "pages", "faults");
  mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(FAULT_PAGES)) writeFileSync(join(dir, `${name}.astro`), content);
}

/** The blog's Tabs component, relative to a copy's root. */
export const TABS = "src/components/Tabs.astro";

/** Breaks the Tabs' keyboard navigation in a copy: an arrow key throws `message`. */
export function breakTabsKeyboard(root: string, message: string): void {
  const tabs = join(root, TABS);
  writeFileSync(
    tabs,
    readFileSync(tabs, "utf8").replace(
      "const target = moves[event.key];",
      `if (event.key.startsWith("Arrow")) throw new Error(${JSON.stringify(message)});\n      const target = moves[event.key];`,
    ),
  );
}

/** Appends text to an article of the copy (e.g. an invalid diagram, or `{foo bar}` in prose). */
export function appendToArticle(root: string, lang: "fr" | "en", slug: string, text: string): void {
  appendFileSync(join(root, "src", "content", "articles", lang, `${slug}.mdx`), `\n\n${text}\n`);
}
