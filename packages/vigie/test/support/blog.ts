// The reference blog (the repository root) and disposable copies of it for tests.
// Copies live in <repo>/.fixtures/, so Node and Vite find the one install of the
// repository by walking up: no `npm install` per copy.
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type Project, projectAt } from "../../src/core/project.ts";

export const BLOG_ROOT = new URL("../../../..", import.meta.url).pathname.replace(/\/$/, "");
export const FIXTURES_DIR = join(BLOG_ROOT, ".fixtures");

const COPIED = ["src", "public", "astro.config.mjs", "package.json", "tsconfig.json"];

export interface BlogCopy extends Project {
  remove(): void;
}

/** A fresh copy of the blog's sources under .fixtures/<name>-<random>/. */
export function copyBlog(name: string): BlogCopy {
  const root = join(FIXTURES_DIR, `${name.replace(/[^a-z0-9-]/gi, "-")}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(root, { recursive: true });
  for (const entry of COPIED) cpSync(join(BLOG_ROOT, entry), join(root, entry), { recursive: true });
  return { ...projectAt(root), remove: () => rmSync(root, { recursive: true, force: true }) };
}
