// The JSON schema of a tool's arguments, as MCP clients receive it and the CLI reads it.
import { z } from "zod";
import { answerShape } from "./answers.ts";
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

const answers = new WeakMap<ToolDefinition, Record<string, unknown>>();

/**
 * What the tool answers, as JSON schema (MCP's outputSchema): every field typed and
 * optional, other fields allowed (see answers.ts). No `$schema` key.
 */
export function answerSchema(definition: ToolDefinition): Record<string, unknown> & { type: "object" } {
  let schema = answers.get(definition);
  if (!schema) {
    schema = z.toJSONSchema(z.looseObject(answerShape(definition, z)), { io: "output", unrepresentable: "any" }) as Record<string, unknown>;
    delete schema.$schema;
    schema = compact(schema) as Record<string, unknown>;
    answers.set(definition, schema);
  }
  return schema as Record<string, unknown> & { type: "object" };
}

/**
 * Drops what says nothing: the safe-integer bounds zod gives every integer,
 * `additionalProperties: {}` (any other field is allowed anyway), and a record's
 * `propertyNames: {type: "string"}`.
 */
function compact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(compact);
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === "minimum" && inner === Number.MIN_SAFE_INTEGER) continue;
    if (key === "maximum" && inner === Number.MAX_SAFE_INTEGER) continue;
    if (key === "additionalProperties" && inner && typeof inner === "object" && Object.keys(inner).length === 0) continue;
    // A record's keys are strings: JSON has no other.
    if (key === "propertyNames" && JSON.stringify(inner) === '{"type":"string"}') continue;
    out[key] = compact(inner);
  }
  return out;
}
