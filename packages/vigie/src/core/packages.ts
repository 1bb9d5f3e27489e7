// The packages a project has installed, as Node resolves them from its root.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

/** The version of a package as the project resolves it, or undefined when it is not installed. */
export function installedVersion(root: string, name: string): string | undefined {
  try {
    const require = createRequire(join(root, "package.json"));
    const path = require.resolve(`${name}/package.json`);
    return (JSON.parse(readFileSync(path, "utf8")) as { version?: string }).version;
  } catch {
    // Packages whose exports hide package.json: look in node_modules directly.
    const path = join(root, "node_modules", name, "package.json");
    if (!existsSync(path)) return undefined;
    try {
      return (JSON.parse(readFileSync(path, "utf8")) as { version?: string }).version;
    } catch {
      return undefined;
    }
  }
}

/** The major version of the project's installed Astro, or undefined when it is not installed. */
export function astroMajor(root: string): number | undefined {
  const major = Number(installedVersion(root, "astro")?.split(".")[0]);
  return Number.isInteger(major) ? major : undefined;
}
