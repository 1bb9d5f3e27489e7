// Checks an answer against its tool's output schema (the one MCP lists), with ajv in strict
// mode: the same check an MCP client may make of structuredContent.
import assert from "node:assert/strict";
import { Ajv, type ValidateFunction } from "ajv";
import type { Answer } from "../../src/core/answer.ts";
import { type ToolDefinition, toolName } from "../../src/tools/define.ts";
import { findTool } from "../../src/tools/registry.ts";
import { answerSchema } from "../../src/tools/schema.ts";

const ajv = new Ajv({ strict: true, allErrors: true });
const validators = new Map<ToolDefinition, ValidateFunction>();

/** Asserts that `answer` validates against the output schema of `tool` (a definition, or a name under any prefix). */
export function assertAnswerMatches(tool: ToolDefinition | string, answer: unknown): void {
  const definition = typeof tool === "string" ? findTool(tool.replace(/^[a-z][a-z0-9]*_(?=(dev|build|browser)_)/, "blog_")) : tool;
  assert.ok(definition, `no tool ${String(tool)}`);
  let validate = validators.get(definition);
  if (!validate) {
    validate = ajv.compile(answerSchema(definition));
    validators.set(definition, validate);
  }
  if (!validate(answer as Answer))
    assert.fail(
      `${toolName(definition)}: the answer does not match its output schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(answer).slice(0, 600)}`,
    );
}
