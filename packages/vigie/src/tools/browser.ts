import type { ToolDefinition } from "./define.ts";

/** blog_browser_*: the page checks in a real Chromium. */
export const browserTools: ToolDefinition[] = [];
