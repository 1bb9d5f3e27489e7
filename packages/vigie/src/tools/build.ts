import type { ToolDefinition } from "./define.ts";

/** blog_build_*: the production build, content lint, astro check and link check. */
export const buildTools: ToolDefinition[] = [];
