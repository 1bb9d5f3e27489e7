#!/usr/bin/env node
// The `vigie` command. Which code runs:
// - installed from the npm package (this file's real path is under a node_modules/ folder):
//   the compiled JavaScript in dist/, which `npm pack` builds (prepack). Node refuses to strip
//   types under node_modules/, so the TypeScript sources cannot run there.
// - anywhere else (this repository's workspace, where node_modules/vigie is a link to
//   packages/vigie, or a `npm link`): the TypeScript sources in src/, which Node runs as is by
//   stripping the types, so the repository's tests and `npm run vigie` always run the code as
//   it is now, never a stale dist/. With no src/ there, dist/ again.
// Vigie needs Node 22.12+. When this Node is older (or cannot strip types), the project's own
// Node (node_modules/.bin/node, from the `node` npm package) runs the CLI instead, if there is
// one; otherwise the command says which version is needed and exits 2.
import { spawn } from "node:child_process";
import { accessSync, constants, existsSync, realpathSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

const here = realpathSync(fileURLToPath(import.meta.url));
const sources = new URL("../src/cli/main.ts", import.meta.url);
const compiled = new URL("../dist/cli/main.js", import.meta.url);
const installed = here.split(sep).includes("node_modules");
const useSources = existsSync(sources) && (!installed || !existsSync(compiled));
const entry = useSources ? sources : compiled;

const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
const recentEnough = major > 22 || (major === 22 && minor >= 12);

/** The nearest node_modules/.bin/node above `start` that is not the Node running now. */
function projectNode(start) {
  const current = realpathSync(process.execPath);
  for (let dir = start; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", ".bin", "node");
    try {
      accessSync(candidate, constants.X_OK);
      if (realpathSync(candidate) !== current) return candidate;
    } catch {
      // none here
    }
    if (dirname(dir) === dir) return undefined;
  }
}

function run(command, args) {
  const child = spawn(command, args, { stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}

if (recentEnough && (!useSources || process.features.typescript)) {
  await import(entry.href);
} else {
  const node = projectNode(process.cwd()) ?? projectNode(dirname(here));
  const main = fileURLToPath(entry);
  if (node) run(node, [main, ...process.argv.slice(2)]);
  else if (useSources && major >= 22 && (major > 22 || minor >= 6))
    run(process.execPath, ["--experimental-strip-types", "--disable-warning=ExperimentalWarning", main, ...process.argv.slice(2)]);
  else {
    process.stderr.write(
      `vigie: needs Node 22.12 or newer (this is ${process.versions.node}). Install one, or add the npm package "node" to the project: npm i -D node@24\n`,
    );
    process.exit(2);
  }
}
