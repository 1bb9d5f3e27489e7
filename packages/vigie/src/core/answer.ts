// What every tool answers: one compact JSON object, small by default, errors as values.
import { writeFileSync } from "node:fs";
import { type Project, relativePath, statePath } from "./project.ts";

/** The size a default answer must stay under. */
export const MAX_ANSWER_BYTES = 2048;

export type Answer = Record<string, unknown>;

/** A failure the agent can act on: what went wrong, what to do next, and any context. */
export class VigieError extends Error {
  readonly hint: string;
  readonly context: Answer;
  constructor(message: string, hint: string, context: Answer = {}) {
    super(message);
    this.name = "VigieError";
    this.hint = hint;
    this.context = context;
  }
}

export function errorAnswer(message: string, hint: string, context: Answer = {}): Answer {
  return { error: message, hint, ...context };
}

/** Turns anything thrown into an error answer, without a stack trace. */
export function toErrorAnswer(error: unknown): Answer {
  if (error instanceof VigieError) return errorAnswer(error.message, error.hint, error.context);
  const hint = (error as { hint?: unknown })?.hint;
  const message = error instanceof Error ? error.message : String(error);
  return errorAnswer(
    clip(message.split("\n")[0] ?? "unknown error", 400),
    typeof hint === "string" ? hint : "This is a fault of the harness itself; retry once, then report it with the message.",
  );
}

/** Compact JSON, the form every answer takes. */
export function serialize(answer: Answer): string {
  return JSON.stringify(answer);
}

/**
 * Writes a full report under `.opencode/reports/` and returns its path relative to the
 * project root, for the answer to give.
 */
export function writeReport(project: Project, name: string, content: string | object): string {
  const safe = name.replace(/[^a-zA-Z0-9._-]+/g, "-");
  const path = statePath(project, "reports", safe);
  writeFileSync(path, typeof content === "string" ? content : `${JSON.stringify(content, null, 2)}\n`);
  return relativePath(project, path);
}

/** Shortens a string to at most `max` characters, saying so. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
