// The core names no tool: a project chooses its tools' prefix, and the faces word the hints
// that name one (tools/hints.ts, for a StepError's code). No string or template in a file under
// src/core/ holds the name of a tool of the registry (comments may: they speak of the tools).
// Strings are read with TypeScript's own parser.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, test } from "node:test";
import ts from "typescript";
import { toolName } from "../../src/tools/define.ts";
import { registry } from "../../src/tools/registry.ts";

const CORE = resolve(import.meta.dirname, "..", "..", "src", "core");

/** The text of every string and template part of a source file. */
function stringsOf(source: string): string[] {
  const file = ts.createSourceFile("file.ts", source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const strings: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) strings.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return strings;
}

describe("the core names no tool", () => {
  test("no string of src/core/ holds a tool's name", () => {
    const names = registry.map((definition) => toolName(definition));
    const files = readdirSync(CORE, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile() && /\.(m)?ts$|\.mjs$/.test(entry.name))
      .map((entry) => join(entry.parentPath, entry.name));
    assert.ok(files.length > 50, `${files.length} files`);
    const found: string[] = [];
    for (const file of files) {
      for (const text of stringsOf(readFileSync(file, "utf8"))) {
        const name = names.find((candidate) => text.includes(candidate));
        if (name) found.push(`src/core/${relative(CORE, file)}: ${name} in "${text.slice(0, 80)}"`);
      }
    }
    assert.deepEqual(found, []);
  });

  test("the scanner finds a name in a string and in a template, not in a comment", () => {
    const strings = stringsOf(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template
      '// blog_dev_start\nconst a = "call blog_dev_stop";\nconst b = `x ${a} then blog_dev_logs`; /* blog_dev_status */',
    );
    assert.deepEqual(strings, ["call blog_dev_stop", "x ", " then blog_dev_logs"]);
  });
});
