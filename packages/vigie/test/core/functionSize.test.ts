// No function of packages/vigie/src is longer than 80 lines: a longer one is split into named
// functions that say what they do. Every function counts (declarations, methods, arrow
// functions, function expressions), from its first line to its last, read with TypeScript's
// own parser, in TypeScript and JavaScript files alike (.ts, .mts, .js, .mjs, .cjs).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, test } from "node:test";
import ts from "typescript";

const SRC = resolve(import.meta.dirname, "..", "..", "src");
const MAX_LINES = 80;

interface Measured {
  /** "file:line name". */
  where: string;
  lines: number;
}

/** A function's name as a reader finds it: its own, else the variable or property it is given to. */
function nameOf(node: ts.SignatureDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText();
  return "(anonymous)";
}

/** Every function with a body in `text`, with its length in lines. */
export function functionLengths(file: string, text: string): Measured[] {
  const kind = /\.[cm]?jsx?$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const found: Measured[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ where: `${file}:${first + 1} ${nameOf(node)}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.[cm]?[jt]sx?$/.test(entry.name) && !entry.name.endsWith(".d.ts"))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

describe("function size", () => {
  test("the measure counts every kind of function, from its first line to its last", () => {
    const text = [
      "export function declared() {", // 1
      "  return 1;",
      "}",
      "const arrow = () => {", // 4
      "  const inner = function () { return 2; };", // 5
      "  return inner();",
      "};",
      "class Box { method() { return 3; } }", // 8
      "const object = { property: () => 4 };", // 9
      "declare function bodiless(): void;",
    ].join("\n");
    assert.deepEqual(
      functionLengths("x.ts", text).map(({ where, lines }) => `${where} ${lines}`),
      ["x.ts:1 declared 3", "x.ts:4 arrow 4", "x.ts:5 inner 1", "x.ts:8 method 1", "x.ts:9 property 1"],
    );
  });

  test(`no function in packages/vigie/src is over ${MAX_LINES} lines`, () => {
    const files = sourceFiles(SRC);
    assert.ok(files.length > 50, `source files found: ${files.length}`);
    assert.ok(
      files.some((file) => file.endsWith(".mjs")),
      "the .mjs files are measured",
    );
    const long = files
      .flatMap((file) => functionLengths(relative(SRC, file), readFileSync(file, "utf8")))
      .filter(({ lines }) => lines > MAX_LINES)
      .sort((a, b) => b.lines - a.lines)
      .map(({ where, lines }) => `src/${where} (${lines} lines)`);
    assert.deepEqual(long, [], `split these into named functions of at most ${MAX_LINES} lines:\n${long.join("\n")}`);
  });
});
