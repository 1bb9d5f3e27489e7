import type { ToolDefinition } from "./define.ts";

/** blog_dev_*: the dev-server lifecycle. */
export const devTools: ToolDefinition[] = [];
