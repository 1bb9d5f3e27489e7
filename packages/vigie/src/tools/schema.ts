// The JSON schema of a tool's arguments, as MCP clients receive it and the CLI reads it.
import { z } from "zod";
import type { ToolDefinition } from "./define.ts";

/** One argument's schema: the parts the faces read (zod may add others). */
export interface ArgumentSchema {
  type?: string;
  enum?: unknown[];
  items?: ArgumentSchema;
  description?: string;
  [key: string]: unknown;
}

export interface ArgumentsSchema {
  [key: string]: unknown;
  type: "object";
  properties: Record<string, ArgumentSchema>;
  required?: string[];
}

const schemas = new WeakMap<ToolDefinition, ArgumentsSchema>();

/**
 * The arguments a caller may send, built from the definition's `args(z)`. Kept small: no
 * `$schema` key and no `additionalProperties` (runTool ignores an unknown argument and names it in
 * the answer, `ignoredArguments`).
 */
export function argumentsSchema(definition: ToolDefinition): ArgumentsSchema {
  let schema = schemas.get(definition);
  if (!schema) {
    const json = z.toJSONSchema(z.object(definition.args(z)), { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    delete json.$schema;
    delete json.additionalProperties;
    schema = { ...json, type: "object", properties: (json.properties ?? {}) as Record<string, ArgumentSchema> };
    schemas.set(definition, schema);
  }
  return schema;
}
