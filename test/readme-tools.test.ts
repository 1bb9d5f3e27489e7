// The README's table of the tools is the registry's: a description changed in the registry
// and not in the README (or the other way round) fails here until `npm run docs:tools` is run.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { END, README, START, toolsTable, withToolsTable } from "../packages/vigie/scripts/tools-doc.ts";
import { prefixedToolName } from "../packages/vigie/src/tools/define.ts";
import { registry } from "../packages/vigie/src/tools/registry.ts";

test("the README's table of the tools is the one the registry gives", () => {
  const readme = readFileSync(README, "utf8");
  assert.ok(
    readme === withToolsTable(readme),
    "README.md: the table of the tools differs from the registry (packages/vigie/src/tools/registry.ts): run npm run docs:tools",
  );
});

test("the table has one row per tool, its name with the default prefix and its description", () => {
  const rows = toolsTable().split("\n").slice(2);
  assert.equal(rows.length, registry.length);
  registry.forEach((tool, index) => {
    assert.match(rows[index] ?? "", new RegExp(`^\\| \`${prefixedToolName(tool)}\` +\\| `));
    assert.ok(rows[index]?.includes(tool.description), `${prefixedToolName(tool)}'s description`);
  });
});

test("a description changed in the registry changes the section, and only it", () => {
  const readme = `# site\n\nbefore\n\n${START}\n\nold table\n\n${END}\n\nafter\n`;
  const [first, ...others] = registry;
  assert.ok(first);
  const written = withToolsTable(readme, [{ ...first, description: "Shorter | with a pipe." }, ...others]);
  assert.ok(written.startsWith(`# site\n\nbefore\n\n${START}\n\n| tool `));
  assert.ok(written.endsWith(`|\n\n${END}\n\nafter\n`));
  assert.match(written, /\| `blog_dev_start` +\| Shorter \\\| with a pipe\. +\|/);
  assert.notEqual(written, withToolsTable(readme));
  assert.equal(withToolsTable(written), withToolsTable(readme), "a second run rewrites it from the registry again");
});

test("a README without the markers is refused with what to add", () => {
  assert.throws(() => withToolsTable("# site\n"), /README\.md has no "<!-- tools:start -->" line followed by an "<!-- tools:end -->" line/);
});
