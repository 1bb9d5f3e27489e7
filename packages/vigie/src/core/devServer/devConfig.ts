// The config vigie's dev server starts with: .opencode/dev/astro.config.mjs imports the
// project's own config (whatever its name: .mjs, .ts...) and adds vigie's dev integration
// (vigie-dev.mjs, copied beside it), so the dev server can say which pages a changed file
// reaches. The project's config is never touched; without one, the integration alone.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Site } from "../astro/site.ts";
import type { Project } from "../project.ts";

/** Where the generated config and the integration live, relative to the project root. */
export const DEV_CONFIG_DIR = ".opencode/dev";
export const DEV_CONFIG = `${DEV_CONFIG_DIR}/astro.config.mjs`;
/** The dev server's own route answering what changed (vigie-dev.mjs). */
export const DEV_CHANGES_ROUTE = "/__vigie/dev";

/** The integration's source: beside this module, or (compiled, in dist/) in the package's src/, which ships with it. */
const INTEGRATION =
  [new URL("./vigie-dev.mjs", import.meta.url), new URL("../../../src/core/devServer/vigie-dev.mjs", import.meta.url)].find((url) =>
    existsSync(url),
  ) ?? new URL("./vigie-dev.mjs", import.meta.url);

function wrapper(configFile: string | undefined): string {
  // Loaded afresh at each load of the wrapper (Astro loads it again when the config changes): a
  // static import would be the first version, from the runtime's module cache, whatever the edits.
  const user = configFile
    ? `const userConfig = (await import(/* @vite-ignore */ \`../../${configFile}?t=\${Date.now()}\`)).default ?? {};\n`
    : "const userConfig = {};\n";
  return `// Written by vigie at each dev server start: the project's config, untouched, plus vigie's dev integration.
import vigieDev from "./vigie-dev.mjs";

${user}
const withVigie = (config) => ({ ...config, integrations: [...(config?.integrations ?? []), vigieDev(${configFile ? JSON.stringify({ configFile }) : ""})] });

export default typeof userConfig === "function" ? async (...args) => withVigie(await userConfig(...args)) : withVigie(userConfig);
`;
}

/** Writes the wrapper and the integration; answers the config's path relative to the root. */
export function writeDevConfig(site: Site): string {
  const { project } = site;
  const dir = join(project.root, DEV_CONFIG_DIR);
  mkdirSync(dir, { recursive: true });
  const integration = join(dir, "vigie-dev.mjs");
  if (!existsSync(integration) || readFileSync(integration, "utf8") !== readFileSync(INTEGRATION, "utf8")) {
    copyFileSync(INTEGRATION, integration);
  }
  writeFileSync(join(project.root, DEV_CONFIG), wrapper(site.settings.configFile));
  return DEV_CONFIG;
}

/**
 * Whether the dev command can take the wrapped config: the default `npm run dev` whose script is
 * a plain `astro dev` (no config of its own, no other program).
 */
export function devScriptTakesConfig(project: Project): boolean {
  try {
    const scripts = JSON.parse(readFileSync(join(project.root, "package.json"), "utf8")).scripts ?? {};
    const dev = typeof scripts.dev === "string" ? scripts.dev.trim() : "";
    return /^astro dev(\s|$)/.test(dev) && !/--config|--root|[;&|]/.test(dev);
  } catch {
    return false;
  }
}
