// The build for checking: the user's own `astro build`, through a generated config that
// imports theirs and adds one integration. It turns on Vite's hidden source maps for what the
// browser runs (the client build), keeps each map under .opencode/build/maps/, named by a hash
// of the script's text (so a script Astro inlines into the HTML maps too), and deletes the map
// files from the output: the output folder is byte for byte what the user's build writes.
// Runtime errors of a production page are then mapped back to their file and line
// (source/hiddenMaps.ts). When the build script is not a plain `astro build`, the build runs as
// it is and the result says so in one line.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Project } from "../project.ts";

/** Where the build for checking keeps its config and its maps, under the state folder. */
export function checkBuildDir(project: Project): string {
  return join(project.stateDir, "build");
}

const CONFIG_NAMES = ["astro.config.mjs", "astro.config.js", "astro.config.ts", "astro.config.mts", "astro.config.cjs", "astro.config.cts"];

export interface CheckBuildPlan {
  /** The command to run: the given one, or it with `-- --config <wrapper>`. */
  command: string[];
  /** True when the build keeps hidden source maps for the browser checks. */
  maps: boolean;
  /** One line on the source maps: kept where, or why not. */
  note: string;
}

/** The build script of package.json, if any. */
function buildScript(project: Project): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(project.root, "package.json"), "utf8")) as { scripts?: Record<string, unknown> };
    const script = pkg.scripts?.build;
    return typeof script === "string" ? script.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** Why a build script cannot take vigie's config, or undefined when it is a plain `astro build`. */
export function whyNotPlain(script: string | undefined): string | undefined {
  if (script === undefined) return "package.json has no build script";
  if (!/^astro build(\s|$)/.test(script)) return `the build script is "${script.slice(0, 80)}", not astro build`;
  if (/[;&|<>`$()]/.test(script)) return `the build script "${script.slice(0, 80)}" runs more than astro build`;
  if (/\s--(config|root)\b/.test(script)) return `the build script "${script.slice(0, 80)}" names its own config or root`;
  return undefined;
}

/**
 * How vigie builds the project: `command` is what the caller would run; when it is
 * `npm run build` and that script is a plain `astro build`, the build for checking, with the
 * wrapper config written and the old maps removed.
 */
export function planCheckBuild(project: Project, command: string[], isDefault: boolean): CheckBuildPlan {
  const plain = (why: string): CheckBuildPlan => ({
    command,
    maps: false,
    note: `built as is, without source maps (${why}): production errors are located by their script's text only`,
  });
  if (!isDefault) return plain("vigie.config.json names the build command");
  const why = whyNotPlain(buildScript(project));
  if (why) return plain(why);
  const userConfig = CONFIG_NAMES.find((name) => existsSync(join(project.root, name)));
  const dir = checkBuildDir(project);
  const maps = join(dir, "maps");
  rmSync(maps, { recursive: true, force: true });
  mkdirSync(maps, { recursive: true });
  const wrapper = join(dir, "astro.config.mjs");
  writeFileSync(wrapper, wrapperConfig(userConfig ? relative(dir, join(project.root, userConfig)) : undefined, project.root, maps));
  return {
    command: [...command, "--", "--config", relative(project.root, wrapper)],
    maps: true,
    note: `hidden source maps kept in ${relative(project.root, maps)}/, none in the output`,
  };
}

/** The maps the last build for checking kept: their count and bytes. */
export function mapsKept(project: Project): { count: number; bytes: number } {
  const dir = join(checkBuildDir(project), "maps");
  let count = 0;
  let bytes = 0;
  try {
    for (const name of readdirSync(dir)) {
      count += 1;
      bytes += statSync(join(dir, name)).size;
    }
  } catch {
    // no maps
  }
  return { count, bytes };
}

/** The generated config's integration: plain JavaScript that needs nothing but Node and Astro. */
const INTEGRATION = `/** A map's source as a project path (its query kept), from the chunk's folder. */
function sourcePath(source, chunkDir, sourceRoot) {
  if (source.startsWith("\\0") || /^[a-z]+:/i.test(source) && !source.startsWith("file:")) return source;
  const [path, query] = source.replace(/^file:\\/\\//, "").split("?");
  const absolute = isAbsolute(path) ? path : resolve(chunkDir, sourceRoot || "", path);
  const inProject = relative(ROOT, absolute).split("\\\\").join("/");
  return inProject + (query === undefined ? "" : "?" + query);
}

function keep(code, map, file, entry, inlined) {
  if (!map) return;
  const json = typeof map.toString === "function" && !Array.isArray(map.mappings) ? JSON.parse(map.toString()) : map;
  const chunkDir = dirname(file);
  const sources = (json.sources || []).map((source) => sourcePath(source || "", chunkDir, json.sourceRoot));
  const own = (source) => !source.startsWith("..") && !source.includes("node_modules/") && !source.startsWith("\\0");
  const sourcesContent = sources.map((source, index) => (own(source) ? ((json.sourcesContent || [])[index] ?? null) : null));
  const lead = /^\\s*/.exec(code)[0];
  const text = code.trim();
  const kept = {
    version: 3,
    file: relative(ROOT, file).split("\\\\").join("/"),
    entry: entry && !entry.startsWith("\\0") ? relative(ROOT, entry.split("?")[0]).split("\\\\").join("/") : undefined,
    // An inlined script is the chunk trimmed: its line 1 is the chunk's line skipLines + 1.
    skipLines: inlined ? lead.split("\\n").length - 1 : 0,
    sources,
    sourcesContent,
    names: json.names || [],
    mappings: json.mappings,
  };
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 32);
  writeFileSync(join(MAPS, hash + ".json"), JSON.stringify(kept));
}

function hiddenSourceMaps() {
  let hide = false;
  const early = new Map();
  const plugin = {
    name: "vigie:hidden-source-maps",
    applyToEnvironment: (environment) => environment.name === "client",
    // Maps vigie turned on make rolldown say which plugins transform without one: not the site's concern.
    onLog(_level, log) {
      if (hide && log.code === "SOURCEMAP_BROKEN") return false;
    },
    generateBundle: {
      order: "pre",
      handler(_options, bundle) {
        for (const output of Object.values(bundle)) {
          if (output.type === "chunk") early.set(output.fileName, { code: output.code, map: output.map, entry: output.facadeModuleId });
        }
      },
    },
    writeBundle: {
      order: "post",
      handler(options, bundle) {
        const dir = options.dir || (options.file && dirname(options.file));
        if (!dir) return;
        mkdirSync(MAPS, { recursive: true });
        for (const [fileName, first] of early) {
          const output = bundle[fileName];
          const chunk = output && output.type === "chunk" ? output : undefined;
          // A chunk no longer in the bundle was inlined into the HTML as it was then.
          keep(chunk ? chunk.code : first.code, chunk ? chunk.map : first.map, join(dir, fileName), first.entry, !chunk);
          if (hide) rmSync(join(dir, fileName + ".map"), { force: true });
        }
        early.clear();
      },
    },
  };
  return {
    name: "vigie:build-for-checking",
    hooks: {
      "astro:config:setup": ({ config, updateConfig }) => {
        const vite = config.vite || {};
        const own = vite.environments?.client?.build?.sourcemap ?? vite.build?.sourcemap;
        hide = !own;
        updateConfig({
          vite: {
            plugins: [plugin],
            ...(hide ? { environments: { client: { build: { sourcemap: "hidden" } } } } : {}),
          },
        });
      },
    },
  };
}
`;

/**
 * The generated config: the user's config, plus an integration that keeps the client's
 * source maps out of the output. Plain JavaScript that needs nothing but Node and Astro.
 */
export function wrapperConfig(userConfig: string | undefined, root: string, mapsDir: string): string {
  const importLine = userConfig
    ? `import userConfig from ${JSON.stringify(
        userConfig
          .split("\\")
          .join("/")
          .replace(/^(?!\.)/, "./"),
      )};`
    : "const userConfig = {};";
  return `// Written by vigie for its build for checking (your config, plus hidden source maps kept
// out of the output, for locating runtime errors). Rewritten at every such build.
import { createHash } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
${importLine}

const ROOT = ${JSON.stringify(root)};
const MAPS = ${JSON.stringify(mapsDir)};

${INTEGRATION}
const base = userConfig || {};
export default { ...base, integrations: [...(base.integrations || []), hiddenSourceMaps()] };
`;
}
