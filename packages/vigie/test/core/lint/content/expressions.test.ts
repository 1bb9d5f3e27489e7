// Which names an MDX expression in prose may read: what JavaScript and the runtime that
// renders the page define (Error, Reflect, WeakMap, structuredClone...), and what MDX and
// Astro put in the module; not a browser's window or document, and not a typo.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseMdx } from "../../../../src/core/astro/mdx.ts";
import { expressionProblems, readEsm } from "../../../../src/core/lint/content/expressions.ts";

function problems(source: string): string[] {
  const parsed = parseMdx(source);
  return expressionProblems(parsed, "a.mdx", readEsm(parsed.tree, source)).map((problem) => problem.message);
}

describe("known names in MDX expressions", () => {
  const fine = [
    '{new Error("x").message}',
    "{Reflect.ownKeys({ a: 1 }).length}",
    "{new WeakMap().has(Object)}",
    "{new WeakSet().has(Object)}",
    "{new WeakRef(Object).deref() ? 1 : 0}",
    "{structuredClone([1, 2]).length}",
    '{new TypeError("t").name}',
    '{new RangeError("r").name}',
    "{new Uint8Array(4).length}",
    "{new ArrayBuffer(8).byteLength}",
    "{new DataView(new ArrayBuffer(2)).byteLength}",
    "{Number.isInteger(escape.length)}",
    "{typeof queueMicrotask}",
    "{typeof AggregateError}",
    "{typeof Proxy}",
    "{typeof FinalizationRegistry}",
    "{new TextEncoder().encode('é').length}",
    "{new URLSearchParams('a=1').get('a')}",
    "{atob(btoa('x'))}",
    "{Atomics.add.length}",
    "{frontmatter.title}",
    "{url}",
    "{file}",
  ];
  for (const expression of fine) {
    test(`${expression} is not reported`, () => {
      assert.deepEqual(problems(`Some prose ${expression} here.\n`), []);
    });
  }

  test("a name nothing defines is still reported, as is a browser's window or document", () => {
    for (const name of ["titel", "window", "document"]) {
      const found = problems(`Prose {${name}.x} here.\n`);
      assert.equal(found.length, 1, `${name}: ${JSON.stringify(found)}`);
      assert.match(found[0] ?? "", new RegExp(`fails at render: ${name} is not defined`));
    }
  });

  test("a component prop that reads a global is fine too", () => {
    assert.deepEqual(problems('<Figure src={new Error("x").message} />\n'), []);
  });
});
