import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { importersOf, missingModule } from "../../../src/core/changes/missingImport.ts";
import { projectAt } from "../../../src/core/project.ts";

test("the missing module of Astro's and Vite's errors, the overlay's markup left out", () => {
  assert.deepEqual(missingModule("Could not import <code>/src/components/Terminal.astro</code>."), {
    path: "src/components/Terminal.astro",
  });
  assert.deepEqual(missingModule("Error: Could not import `/src/components/Terminal.astro`."), { path: "src/components/Terminal.astro" });
  assert.deepEqual(missingModule('Failed to resolve import "../lib/gone" from "src/pages/index.astro". Does the file exist?'), {
    path: "../lib/gone",
    from: "src/pages/index.astro",
  });
  assert.equal(missingModule("Error: the clock is broken"), undefined);
});

test("its importers: relative and root-absolute specifiers, with or without the extension, each at its line", () => {
  const root = mkdtempSync(join(tmpdir(), "vigie-missing-"));
  try {
    const files: Record<string, string> = {
      "src/views/Article.astro":
        '---\nimport Callout from "../components/Callout.astro";\nimport Terminal from "../components/Terminal.astro";\n---\n',
      "src/pages/index.astro": '---\nconst T = await import("/src/components/Terminal.astro");\n---\n',
      "src/lib/other.ts": 'import { x } from "./Terminal";\nexport const y = "../components/Terminal.astro";\n',
      "node_modules/pkg/Terminal.astro": 'import T from "../../src/components/Terminal.astro";\n',
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    assert.deepEqual(importersOf(projectAt(root), "src/components/Terminal.astro").sort(), [
      "src/pages/index.astro:2",
      "src/views/Article.astro:3",
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
