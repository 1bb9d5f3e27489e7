#!/usr/bin/env node
// The `vigie` command. The CLI is TypeScript that Node runs as is, by stripping the types
// (by default from Node 22.18 and 23.6; behind --experimental-strip-types from 22.6). When
// this Node cannot do it (the system's Node 20, say), the project's own Node
// (node_modules/.bin/node, from the `node` npm package) runs the CLI instead.
// Limitation: Node refuses to strip types in files under node_modules/, so this works where
// vigie is a workspace or linked package (as in this repository) and not yet from an
// installed tarball, which needs the sources compiled to JavaScript first.
import { spawn } from "node:child_process";
import { accessSync, constants, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const entry = new URL("../src/cli/main.ts", import.meta.url);

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

const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
if (process.features.typescript) {
  await import(entry.href);
} else {
  const node = projectNode(process.cwd()) ?? projectNode(dirname(fileURLToPath(import.meta.url)));
  const main = fileURLToPath(entry);
  if (node) run(node, [main, ...process.argv.slice(2)]);
  else if (major > 22 || (major === 22 && minor >= 6))
    run(process.execPath, ["--experimental-strip-types", "--disable-warning=ExperimentalWarning", main, ...process.argv.slice(2)]);
  else {
    process.stderr.write(
      `vigie: needs Node 22.12 or newer (this is ${process.versions.node}). Install one, or add the npm package "node" to the project: npm i -D node@24\n`,
    );
    process.exit(2);
  }
}
