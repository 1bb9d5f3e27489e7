// What each tool answers, as zod shapes: each definition gives its own fields (`answer`), and
// this module adds the fields any answer may have. The MCP face gives them as each tool's
// outputSchema, and the tests check every answer against them. Every field is optional (an
// error answer has error and hint instead of the tool's fields) and an answer may hold a
// field not listed (the schemas stay open): what they pin is the type of each field an agent reads.
import type { ListSpec, Shape, ToolDefinition, Zod } from "./define.ts";

/** The fields any answer may have: an error with its hint, what was cut, the files, the arguments ignored. */
export function commonAnswerShape(z: Zod): Shape {
  return {
    // Set when the call failed, with the hint that says what to do.
    error: z.string(),
    hint: z.string(),
    argument: z.string(),
    // Arguments this tool does not know, left out.
    ignoredArguments: z.array(z.string()),
    // How many items of each list beside it were left out: files.report has them all.
    more: z.record(z.string(), z.number().int()),
    // The files the answer points at, by what each is (report, log, screenshot...), relative to the project root.
    files: z.record(z.string(), z.string()),
    note: z.string(),
  };
}

/** The lists and the string limits of the fields any answer may have, beside each definition's own (render.ts). */
export const COMMON_LISTS: Record<string, ListSpec> = { ignoredArguments: 10 };
export const COMMON_LIMITS: Record<string, number> = { ignoredArguments: 60 };

const optional = (shape: Shape): Shape => Object.fromEntries(Object.entries(shape).map(([key, type]) => [key, type.optional()]));

/** The lines of a log or an output. */
export const lines = (z: Zod) => z.array(z.string());

/** A finding listed in an answer: its text alone, or an object with its source file:line. */
export const finding = (z: Zod) =>
  z.union([z.string(), z.looseObject({ source: z.string().optional(), sourceUnknown: z.string().optional() })]);

/** How many items of each list beside it an answer left out, for a list inside an object (lint's problems). */
export const more = (z: Zod) => z.record(z.string(), z.number().int()).optional();

/** The answer shape of a tool: the common fields and its own, all optional. */
export function answerShape(definition: ToolDefinition, z: Zod): Shape {
  return optional({ ...commonAnswerShape(z), ...definition.answer(z) });
}
