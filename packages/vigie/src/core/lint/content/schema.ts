// Validates frontmatter against the JSON Schema Astro writes for a collection
// (.astro/collections/<name>.schema.json). Only the keywords zod's JSON Schema output
// uses; dates are YAML strings here, accepted when they parse as a date, as zod's
// z.coerce.date() does.

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  items?: JsonSchema | JsonSchema[];
  prefixItems?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  not?: JsonSchema;
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  definitions?: Record<string, JsonSchema>;
}

export interface SchemaIssue {
  /** Path of the field, e.g. ["tags", 2]. */
  path: (string | number)[];
  message: string;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (value instanceof Date) return "date";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function matchesType(value: unknown, type: string, format?: string): boolean {
  const actual = typeOf(value);
  if (actual === "date") return type === "string" && (format === "date-time" || format === "date");
  if (type === "number") return actual === "number" || actual === "integer";
  return actual === type;
}

function show(value: unknown): string {
  const text = value instanceof Date ? value.toISOString() : JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

function resolveRef(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const part of ref.slice(2).split("/"))
    node = (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  return node as JsonSchema | undefined;
}

export function validate(value: unknown, schema: JsonSchema, root: JsonSchema = schema, path: (string | number)[] = []): SchemaIssue[] {
  if (schema.$ref) {
    const target = resolveRef(root, schema.$ref);
    return target ? validate(value, target, root, path) : [];
  }
  const issues: SchemaIssue[] = [];
  const fail = (message: string) => issues.push({ path, message });

  if (schema.allOf) for (const part of schema.allOf) issues.push(...validate(value, part, root, path));
  for (const options of [schema.anyOf, schema.oneOf]) {
    if (!options) continue;
    const results = options.map((option) => validate(value, option, root, path));
    if (!results.some((result) => result.length === 0)) {
      // Report the option that came closest (fewest issues).
      const closest = results.reduce((best, result) => (result.length < best.length ? result : best));
      issues.push(...closest);
    }
  }
  if (schema.not && validate(value, schema.not, root, path).length === 0) fail("matches a form that is not allowed");

  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((type) => matchesType(value, type, schema.format))) {
      fail(
        `expected ${types.join(" or ")}${schema.format ? ` (${schema.format})` : ""}, got ${typeOf(value) === "integer" ? "number" : typeOf(value)} ${show(value)}`,
      );
      return issues;
    }
  }
  if (schema.enum && !schema.enum.some((option) => option === value))
    fail(`expected one of ${schema.enum.map(show).join(", ")}, got ${show(value)}`);
  if (schema.const !== undefined && schema.const !== value) fail(`expected ${show(schema.const)}, got ${show(value)}`);

  if (typeof value === "string") {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) fail(`too short: ${length} characters, at least ${schema.minLength}`);
    if (schema.maxLength !== undefined && length > schema.maxLength) fail(`too long: ${length} characters, at most ${schema.maxLength}`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value))
      fail(`${show(value)} does not match ${schema.pattern}`);
    if ((schema.format === "date-time" || schema.format === "date") && Number.isNaN(Date.parse(value)))
      fail(`${show(value)} is not a date`);
    if (schema.format === "email" && !/^[^\s@]+@[^\s@]+$/.test(value)) fail(`${show(value)} is not an email address`);
    if (schema.format === "uri" && !/^[a-z][a-z0-9+.-]*:/i.test(value)) fail(`${show(value)} is not an absolute URL`);
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) fail(`${value} is below the minimum ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) fail(`${value} is above the maximum ${schema.maximum}`);
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum)
      fail(`${value} must be greater than ${schema.exclusiveMinimum}`);
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum)
      fail(`${value} must be less than ${schema.exclusiveMaximum}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) fail(`${value.length} items, at least ${schema.minItems}`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) fail(`${value.length} items, at most ${schema.maxItems}`);
    if (schema.uniqueItems && new Set(value.map((item) => JSON.stringify(item))).size !== value.length) fail("items are not unique");
    const prefix = schema.prefixItems ?? (Array.isArray(schema.items) ? schema.items : []);
    for (const [index, item] of value.entries()) {
      const itemSchema = index < prefix.length ? prefix[index] : Array.isArray(schema.items) ? undefined : schema.items;
      if (itemSchema) issues.push(...validate(item, itemSchema, root, [...path, index]));
    }
  }
  if (typeOf(value) === "object") {
    const object = value as Record<string, unknown>;
    for (const key of schema.required ?? []) {
      if (object[key] === undefined) issues.push({ path: [...path, key], message: "required field is missing" });
    }
    for (const [key, field] of Object.entries(object)) {
      const propertySchema = schema.properties?.[key];
      if (propertySchema) issues.push(...validate(field, propertySchema, root, [...path, key]));
      else if (schema.additionalProperties === false) issues.push({ path: [...path, key], message: "unknown field" });
      else if (typeof schema.additionalProperties === "object")
        issues.push(...validate(field, schema.additionalProperties, root, [...path, key]));
    }
  }
  return issues;
}
