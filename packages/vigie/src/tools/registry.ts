// The sixteen tools, each defined once. Faces read this list and nothing else.
import { browserTools } from "./browser.ts";
import { buildTools } from "./build.ts";
import type { ToolDefinition, ToolGroup } from "./define.ts";
import { toolName } from "./define.ts";
import { devTools } from "./dev.ts";

export const registry: readonly ToolDefinition[] = [...devTools, ...buildTools, ...browserTools];

export function toolsOf(group: ToolGroup): ToolDefinition[] {
  return registry.filter((definition) => definition.group === group);
}

export function findTool(name: string): ToolDefinition | undefined {
  return registry.find((definition) => toolName(definition) === name);
}
