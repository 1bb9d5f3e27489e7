// The output schema of every tool (its definition's `answer` and the common fields of
// tools/answers.ts, MCP's outputSchema): each compiles
// under ajv's strict mode, says what the tool answers (its own fields, typed), and the
// answers the tools give here validate against it. Other test files check their answers
// with `assertAnswerMatches` (test/support/answers.ts).
import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { z } from "zod";
import { projectAt } from "../../src/core/project.ts";
import { toolName } from "../../src/tools/define.ts";
import { findTool, registry } from "../../src/tools/registry.ts";
import { runTool } from "../../src/tools/run.ts";
import { answerSchema } from "../../src/tools/schema.ts";
import { assertAnswerMatches } from "../support/answers.ts";
import { FIXTURES_DIR } from "../support/blog.ts";

const root = join(FIXTURES_DIR, `answers-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
const project = projectAt(root);

describe("output schemas", () => {
  before(() => {
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "package.json"), '{"name":"answers-fixture","private":true}\n');
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test("one per tool, each an object schema with the tool's own fields and the common ones", () => {
    for (const definition of registry) {
      const schema = answerSchema(definition) as { type: string; properties: Record<string, unknown>; required?: unknown };
      assert.equal(schema.type, "object");
      assert.equal(schema.required, undefined, "every field optional: an error answer has error and hint instead");
      const own = Object.keys(definition.answer(z));
      assert.ok(own.length >= 2, toolName(definition));
      for (const field of [...own, "error", "hint", "ignoredArguments", "more", "files"])
        assert.ok(schema.properties[field], `${toolName(definition)}.${field}`);
    }
  });

  test("a wrong type is caught", () => {
    const status = findTool("blog_dev_status");
    assert.ok(status);
    assert.throws(() => assertAnswerMatches(status, { running: "yes" }), /running/);
    assert.throws(() => assertAnswerMatches(status, { ignoredArguments: "x" }), /ignoredArguments/);
    assertAnswerMatches(status, { running: false, hint: "start it", somethingElse: 1 });
  });

  test("the answers of the dev tools with no server, and error answers, match their schema", async () => {
    const calls: [string, unknown][] = [
      ["blog_dev_status", {}],
      ["blog_dev_status", { wait_for_previous: true }],
      ["blog_dev_stop", {}],
      ["blog_dev_logs", {}],
      ["blog_dev_logs", { lines: 0 }],
      ["blog_dev_http_get", { path: "/" }],
      ["blog_dev_start", { port: "http" }],
      ["blog_build_links", {}],
      ["blog_browser_js_errors", { path: "/" }],
      ["blog_browser_crawl", {}],
    ];
    for (const [name, args] of calls) {
      const definition = findTool(name);
      assert.ok(definition, name);
      assertAnswerMatches(definition, await runTool(definition, args, { project }));
    }
  });
});
