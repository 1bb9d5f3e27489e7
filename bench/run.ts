// `npm run bench`: runs every bench/*.bench.ts (or those named on the command line)
// and writes their sections to bench/results/<name>.md, then joins every section
// there into bench/RESULTS.md. Each bench module exports a default
// async function that measures side by side in one run and returns a markdown section.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";

const dir = new URL(".", import.meta.url).pathname;
const wanted = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((name) => name.endsWith(".bench.ts"))
  .filter((name) => wanted.length === 0 || wanted.some((w) => name.includes(w)))
  .sort();

const resultsDir = join(dir, "results");
mkdirSync(resultsDir, { recursive: true });
for (const file of files) {
  process.stdout.write(`bench: ${file}...\n`);
  const started = Date.now();
  const module = (await import(join(dir, file))) as { default: () => Promise<string> };
  let section: string;
  try {
    section = (await module.default()).trim();
  } catch (error) {
    section = `## ${file}\n\nFailed: ${(error as Error).message}`;
  }
  writeFileSync(join(resultsDir, file.replace(/\.bench\.ts$/, ".md")), `${section}\n`);
  process.stdout.write(`${section}\n`);
  process.stdout.write(`bench: ${file} done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

const header = [
  "# Benchmark results",
  "",
  `Written by \`npm run bench\` (each section's date is its last run); machine: ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
  "Medians of runs made side by side in one process; machines are shared, so compare ratios rather than absolute times.",
  "",
].join("\n");
const sections = readdirSync(resultsDir)
  .filter((name) => name.endsWith(".md"))
  .sort()
  .map((name) => readFileSync(join(resultsDir, name), "utf8").trim());
writeFileSync(join(dir, "RESULTS.md"), `${header}\n${sections.join("\n\n")}\n`);
