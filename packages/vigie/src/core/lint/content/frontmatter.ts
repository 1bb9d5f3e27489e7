// Moved to core/astro/frontmatter.ts; re-exported for core/changes until it imports it from there.
export { readFrontmatter } from "../../astro/frontmatter.ts";
