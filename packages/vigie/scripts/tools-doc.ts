// The README's table of the tools, written from the registry: `npm run docs:tools` rewrites the
// lines between the two markers below in the root README.md; a fast test fails while they differ.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { prefixedToolName, type ToolDefinition } from "../src/tools/define.ts";
import { registry } from "../src/tools/registry.ts";

export const README = join(import.meta.dirname, "..", "..", "..", "README.md");
export const START = "<!-- tools:start -->";
export const END = "<!-- tools:end -->";

/** A table cell: on one line, its pipes escaped. */
const cell = (text: string) => text.replace(/\s+/g, " ").replace(/\|/g, "\\|").trim();

/** The table of `tools`, one row each (the name with the default prefix, its description), columns aligned. */
export function toolsTable(tools: readonly ToolDefinition[] = registry): string {
  const rows = [["tool", "what it does"], ...tools.map((tool) => [`\`${prefixedToolName(tool)}\``, cell(tool.description)])];
  const widths = [0, 1].map((column) => Math.max(...rows.map((row) => row[column]?.length ?? 0)));
  const line = (row: string[]) => `| ${row.map((text, column) => text.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  const [head = [], ...body] = rows;
  return [line(head), line(widths.map((width) => "-".repeat(width))), ...body.map(line)].join("\n");
}

/** `readme` with the lines between the markers replaced by the table; throws when a marker is missing. */
export function withToolsTable(readme: string, tools: readonly ToolDefinition[] = registry): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start === -1 || end === -1 || end < start) {
    throw new Error(`README.md has no "${START}" line followed by an "${END}" line: put them where the table of the tools goes.`);
  }
  return `${readme.slice(0, start + START.length)}\n\n${toolsTable(tools)}\n\n${readme.slice(end)}`;
}

if (import.meta.main) {
  try {
    const readme = readFileSync(README, "utf8");
    const written = withToolsTable(readme);
    if (written === readme) console.log(`README.md: the table of the ${registry.length} tools is up to date.`);
    else {
      writeFileSync(README, written);
      console.log(`README.md: the table of the ${registry.length} tools is rewritten.`);
    }
  } catch (error) {
    console.error(`docs:tools: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
