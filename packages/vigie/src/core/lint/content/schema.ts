// Validates frontmatter against the JSON Schema Astro writes for a collection
// (.astro/collections/<name>.schema.json, zod's draft 2020-12 output) with Ajv, and words
// its errors for the answer. Dates are YAML strings here, accepted when they parse as a
// date, as zod's z.coerce.date() does.
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { clip } from "../../answer.ts";

/** A JSON Schema as read from disk (only the fields this file looks at are typed). */
export interface JsonSchema {
  [keyword: string]: unknown;
  type?: string | string[];
  format?: string;
}

export interface SchemaIssue {
  /** Path of the field, e.g. ["tags", 2]. */
  path: (string | number)[];
  message: string;
}

const isDate = (value: string) => !Number.isNaN(Date.parse(value));
const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: false, validateSchema: false, logger: false })
  .addFormat("date-time", isDate)
  .addFormat("date", isDate)
  .addFormat("email", /^[^\s@]+@[^\s@]+$/)
  .addFormat("uri", /^[a-z][a-z0-9+.-]*:/i);
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : clip(text, 60);
}

function typeOf(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}

function pathOf(error: ErrorObject): (string | number)[] {
  const parts = error.instancePath.split("/").slice(1);
  const path = parts.map((part) => (/^\d+$/.test(part) ? Number(part) : part.replace(/~1/g, "/").replace(/~0/g, "~")));
  if (error.keyword === "required") path.push(String(error.params.missingProperty));
  if (error.keyword === "additionalProperties") path.push(String(error.params.additionalProperty));
  return path;
}

const FORMATS: Record<string, string> = { "date-time": "a date", date: "a date", email: "an email address", uri: "an absolute URL" };

function messageOf({ keyword, params, data, parentSchema }: ErrorObject): string {
  const { limit, format } = params as { limit: number; format: string };
  const units = { minLength: "characters", maxLength: "characters", minItems: "items", maxItems: "items" }[keyword];
  const size = typeof data === "string" ? [...data].length : Array.isArray(data) ? data.length : 0;
  switch (keyword) {
    case "required":
      return "required field is missing";
    case "additionalProperties":
      return "unknown field";
    case "type": {
      const wanted = [params.type].flat().join(" or ");
      const schemaFormat = (parentSchema as JsonSchema | undefined)?.format;
      return `expected ${wanted}${schemaFormat ? ` (${schemaFormat})` : ""}, got ${typeOf(data)} ${show(data)}`;
    }
    case "enum":
      return `expected one of ${(params.allowedValues as unknown[]).map(show).join(", ")}, got ${show(data)}`;
    case "const":
      return `expected ${show(params.allowedValue)}, got ${show(data)}`;
    case "minLength":
    case "minItems":
      return `${keyword === "minLength" ? "too short: " : ""}${size} ${units}, at least ${limit}`;
    case "maxLength":
    case "maxItems":
      return `${keyword === "maxLength" ? "too long: " : ""}${size} ${units}, at most ${limit}`;
    case "pattern":
      return `${show(data)} does not match ${params.pattern}`;
    case "format":
      return `${show(data)} is not ${FORMATS[format] ?? `a valid ${format}`}`;
    case "uniqueItems":
      return "items are not unique";
    case "not":
      return "matches a form that is not allowed";
    default:
      return `${show(data)}: ${ajv.errorsText([{ ...params, keyword, message: undefined } as never]) && keyword} ${JSON.stringify(params)}`;
  }
}

/**
 * Of a union's (anyOf/oneOf) branch errors, keeps those of the branch that came closest
 * (fewest errors), as a reader fixes one form, not all of them.
 */
function closestBranches(errors: ErrorObject[]): ErrorObject[] {
  let kept = errors;
  for (const union of errors.filter((error) => error.keyword === "anyOf" || error.keyword === "oneOf")) {
    const prefix = `${union.schemaPath}/`;
    const branches = new Map<string, ErrorObject[]>();
    for (const error of kept) {
      if (!error.schemaPath.startsWith(prefix)) continue;
      const branch = error.schemaPath.slice(prefix.length).split("/")[0] ?? "";
      branches.set(branch, [...(branches.get(branch) ?? []), error]);
    }
    const closest = [...branches.values()].reduce((best, branch) => (branch.length < best.length ? branch : best), [...kept]);
    kept = kept.filter((error) => error !== union && (!error.schemaPath.startsWith(prefix) || closest.includes(error)));
  }
  return kept;
}

export function validate(value: unknown, schema: JsonSchema): SchemaIssue[] {
  let check = compiled.get(schema);
  try {
    check ??= ajv.compile(schema);
  } catch (error) {
    return [{ path: [], message: `the collection schema could not be read: ${(error as Error).message}` }];
  }
  compiled.set(schema, check);
  // YAML timestamps come as Date objects: checked as the strings they were written as.
  const data = JSON.parse(JSON.stringify(value ?? null));
  if (check(data)) return [];
  return closestBranches(check.errors ?? []).map((error) => ({ path: pathOf(error), message: messageOf(error) }));
}
