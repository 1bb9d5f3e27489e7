// The core knows nothing of its faces: no file under src/core/ imports from src/tools/,
// src/faces/ or src/cli/, from the package itself (`vigie`, `vigie/*`: those are the faces),
// nor from @opencode-ai/* or @modelcontextprotocol/*. Import specifiers are read with
// TypeScript's own pre-processor (static imports and exports, `import type`, `import()`,
// `require`), relative ones resolved against the importing file.
// Within the core, core/config.ts leads to nothing under core/browser/ (it parses the actions
// without the browser, which imports the config), and the findings of a page check, the
// faults made of them and the islands read are on no import loop (findings.ts holds the
// types the others share).
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, test } from "node:test";
import ts from "typescript";

const SRC = resolve(import.meta.dirname, "..", "..", "src");
const CORE = join(SRC, "core");
const FACES = ["tools", "faces", "cli"].map((folder) => join(SRC, folder));
const FACE_PACKAGES = [/^@opencode-ai\//, /^@modelcontextprotocol\//];
/** `vigie/opencode` and `vigie/mcp` are faces; `vigie` itself re-exports the core (a cycle). */
const OWN_PACKAGE = /^vigie(\/|$)/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(c|m)?[jt]sx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** What `file` (with `source` as its text) imports that the core must not: "specifier (why)". */
function violations(file: string, source: string): string[] {
  const found: string[] = [];
  for (const { fileName: specifier } of ts.preProcessFile(source, true, true).importedFiles) {
    if (specifier.startsWith(".")) {
      const target = resolve(dirname(file), specifier);
      const face = FACES.find((folder) => target === folder || target.startsWith(`${folder}${sep}`));
      if (face) found.push(`${specifier} (in src/${relative(SRC, face)}/)`);
    } else if (FACE_PACKAGES.some((pattern) => pattern.test(specifier))) found.push(`${specifier} (a face's package)`);
    else if (OWN_PACKAGE.test(specifier)) found.push(`${specifier} (the package's own entry point)`);
  }
  return found;
}

describe("core boundary", () => {
  test("the checker sees every form of import", () => {
    const file = join(CORE, "browser", "example.ts");
    const source = [
      'import { registry } from "../../tools/registry.ts";',
      'import type { Tool } from "@opencode-ai/plugin";',
      'export { Server } from "@modelcontextprotocol/sdk/server/index.js";',
      'const mcp = await import("../../faces/mcp.ts");',
      'import "../../cli/main.ts";',
      'import { clip } from "../answer.ts";',
      'import { chromium } from "playwright-core";',
      'import { x } from "vigie/opencode";',
    ].join("\n");
    assert.deepEqual(violations(file, source), [
      "../../tools/registry.ts (in src/tools/)",
      "@opencode-ai/plugin (a face's package)",
      "@modelcontextprotocol/sdk/server/index.js (a face's package)",
      "../../faces/mcp.ts (in src/faces/)",
      "../../cli/main.ts (in src/cli/)",
      "vigie/opencode (the package's own entry point)",
    ]);
  });

  test("no file under src/core/ imports from tools/, faces/, cli/, OpenCode's or MCP's packages", () => {
    const files = sourceFiles(CORE);
    assert.ok(files.length > 20, `core files found: ${files.length}`);
    const found = files.flatMap((file) => violations(file, readFileSync(file, "utf8")).map((what) => `${relative(SRC, file)}: ${what}`));
    assert.deepEqual(found, [], `the core imports from a face:\n${found.join("\n")}`);
  });
});

/** Each file under src/ with the files under src/ it imports (type imports too). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const imported = ts
      .preProcessFile(readFileSync(file, "utf8"), true, true)
      .importedFiles.map(({ fileName }) => fileName)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => resolve(dirname(file), specifier))
      .filter((target) => existsSync(target));
    graph.set(
      relative(SRC, file),
      imported.map((target) => relative(SRC, target)),
    );
  }
  return graph;
}

/** The files `from` leads to through its imports, itself only when it is on a loop. */
function reachable(graph: Map<string, string[]>, from: string): Set<string> {
  const seen = new Set<string>();
  const next = [...(graph.get(from) ?? [])];
  for (let file = next.pop(); file !== undefined; file = next.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    next.push(...(graph.get(file) ?? []));
  }
  return seen;
}

describe("import loops", () => {
  const graph = importGraph();
  const BROWSER = `core${sep}browser${sep}`;
  const CONFIG = join("core", "config.ts");

  test("the check follows imports to their end, and sees a loop", () => {
    const toy = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts", "d.ts"]],
      ["d.ts", []],
    ]);
    assert.deepEqual([...reachable(toy, "a.ts")].sort(), ["a.ts", "b.ts", "c.ts", "d.ts"]);
    assert.deepEqual([...reachable(toy, "d.ts")], []);
    assert.ok(graph.get(CONFIG)?.length, "core/config.ts's imports are read");
  });

  test("core/config.ts leads to nothing under core/browser/: the browser imports the config, not the other way", () => {
    const browser = [...reachable(graph, CONFIG)].filter((file) => file.startsWith(BROWSER)).sort();
    assert.deepEqual(browser, [], `core/config.ts imports, directly or through others:\n${browser.join("\n")}`);
  });

  test("findings.ts, faults.ts and islands.ts are on no import loop", () => {
    const files = ["findings.ts", "faults.ts", "islands.ts"].map((name) => `${BROWSER}page${sep}${name}`);
    for (const file of files) assert.ok(graph.has(file), `${file} is read`);
    const looping = files.filter((file) => reachable(graph, file).has(file));
    assert.deepEqual(looping, [], `these import themselves back through others:\n${looping.join("\n")}`);
  });
});

/**
 * The core's folders from the lowest layer to the highest: a file imports only from its own
 * folder or a lower one. The root of the core (the project, answers, waiting, files, the
 * config) is the lowest; the check service and validate are the highest. A new folder of the
 * core must be placed here.
 */
const LAYERS = [
  "core",
  "core/process",
  "core/source",
  "core/browser/page",
  "core/browser/session",
  "core/browser/perf",
  "core/browser/a11y",
  "core/browser/capture",
  "core/browser/load",
  "core/production",
  "core/astro",
  "core/devServer",
  "core/build",
  "core/links",
  "core/lint",
  "core/lint/mermaid",
  "core/lint/content",
  "core/typecheck",
  "core/changes",
  "core/checks",
  "core/validate/steps",
  "core/validate",
].map((folder) => folder.split("/").join(sep));

const folderOf = (file: string) => dirname(file);

/** The sets of files (or folders) that import one another round a loop (Tarjan's strongly connected components). */
export function loops(graph: Map<string, Iterable<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1 || (graph.get(node) && [...(graph.get(node) as Iterable<string>)].includes(node)))
      found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe("layers", () => {
  const graph = importGraph();
  const folders = new Map<string, Set<string>>();
  for (const [file, imported] of graph) {
    const from = folderOf(file);
    if (!folders.has(from)) folders.set(from, new Set());
    for (const target of imported) if (folderOf(target) !== from) folders.get(from)?.add(folderOf(target));
  }

  test("the loop finder sees a loop of files and leaves a chain alone", () => {
    const toy = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    assert.deepEqual(loops(toy), [["a", "b", "c"]]);
    assert.deepEqual(
      loops(
        new Map([
          ["a", ["b"]],
          ["b", []],
        ]),
      ),
      [],
    );
  });

  test("every folder of the core has its place in the layers", () => {
    const unplaced = [...folders.keys()].filter((folder) => folder.startsWith("core") && !LAYERS.includes(folder));
    assert.deepEqual(unplaced, [], `place these folders in LAYERS: ${unplaced.join(", ")}`);
  });

  test("no file of the core imports from a higher layer", () => {
    const upward: string[] = [];
    for (const [file, imported] of graph) {
      const from = LAYERS.indexOf(folderOf(file));
      if (from < 0) continue;
      for (const target of imported) {
        const to = LAYERS.indexOf(folderOf(target));
        if (to > from) upward.push(`${file} -> ${target}`);
      }
    }
    assert.deepEqual(upward, [], `imports from a lower layer to a higher one:\n${upward.join("\n")}`);
  });

  test("no loop of imports between files, nor between folders", () => {
    assert.deepEqual(loops(graph), [], "files that import one another round a loop");
    assert.deepEqual(loops(folders), [], "folders that import one another round a loop");
  });
});
