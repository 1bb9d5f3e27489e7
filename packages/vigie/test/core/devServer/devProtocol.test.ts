// The dev endpoint's messages have one definition (devProtocol.ts): the integration, plain
// JavaScript, is type-checked against it through its JSDoc, and a message that drifts from it
// is an error.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, test } from "node:test";
import ts from "typescript";

const INTEGRATION = resolve(import.meta.dirname, "..", "..", "..", "src", "core", "devServer", "vigie-dev.mjs");

const OPTIONS: ts.CompilerOptions = {
  allowJs: true,
  checkJs: true,
  noEmit: true,
  strict: true,
  noImplicitAny: false,
  allowImportingTsExtensions: true,
  target: ts.ScriptTarget.ES2023,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  types: ["node"],
  skipLibCheck: true,
};

let last: ts.Program | undefined;

/** The type errors of the integration, its text replaced by `text` when given (the last program's other files reused). */
function errorsOf(text?: string): string[] {
  const host = ts.createCompilerHost(OPTIONS);
  if (text !== undefined) {
    const read = host.getSourceFile;
    host.getSourceFile = (file, language, ...rest) =>
      resolve(file) === INTEGRATION ? ts.createSourceFile(file, text, language) : read.call(host, file, language, ...rest);
  }
  const program = ts.createProgram([INTEGRATION], OPTIONS, host, last);
  last = program;
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => `${diagnostic.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`);
}

describe("the dev endpoint's messages", () => {
  test("the integration type-checks against devProtocol.ts", () => {
    assert.deepEqual(errorsOf(), []);
  });

  test("an answer that drifts from the protocol is a type error", () => {
    const source = readFileSync(INTEGRATION, "utf8");
    assert.ok(source.includes("lastChangeSeq:"));
    const errors = errorsOf(source.replace("lastChangeSeq:", "lastChangedSeq:"));
    assert.ok(
      errors.some((error) => /lastChangedSeq/.test(error)),
      errors.join("\n"),
    );
  });
});
