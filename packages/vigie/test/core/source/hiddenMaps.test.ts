// The build for checking's hidden source maps, end to end without Astro: the generated config
// is imported as Astro would import it, its plugin is given a client bundle as Vite gives it (a
// chunk of a component's script, a chunk the build then inlines into the HTML, an island's
// chunk), and the maps it keeps locate stack frames of the served scripts at their exact line.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { SourceMapGenerator } from "source-map-js";
import { locateIsland } from "../../../src/core/browser/page/locate.ts";
import { planCheckBuild, whyNotPlain, wrapperConfig } from "../../../src/core/build/checkBuild.ts";
import { projectAt } from "../../../src/core/project.ts";
import { SourceFiles } from "../../../src/core/source/files.ts";
import { hiddenMapsDir, inlineScriptAt, scriptKey } from "../../../src/core/source/hiddenMaps.ts";
import { locateStack } from "../../../src/core/source/stacks.ts";

let root: string;
const ORIGIN = "http://127.0.0.1:4321";
const served = new Map<string, string>();
const fetchText = async (url: string) => served.get(url);

const BUNDLED_ASTRO = `<p id="bundled">Bundled.</p>
<script>
  import { ready } from "../scripts/ready.ts";

  ready(() => {
    const target = document.querySelector("#bundled");
    if (target) throw new Error('bundled script failed');
  });
</script>
`;
/** The script as Astro hands it to Vite (its map's source content). */
const BUNDLED_SCRIPT = `import { ready } from "../scripts/ready.ts";

ready(() => {
  const target = document.querySelector("#bundled");
  if (target) throw new Error("bundled script failed");
});`;

const LATER_ASTRO = `<p>Later.</p>
<script>
  const delay = 10;
  setTimeout(() => {
    throw new Error("inlined script failed");
  }, delay);
</script>
`;
const LATER_SCRIPT = 'const delay = 10;\nsetTimeout(() => {\n  throw new Error("inlined script failed");\n}, delay);';

const ISLAND = `import { useEffect } from "preact/hooks";

export default function Island() {
  useEffect(() => {
    throw new Error("island failed");
  }, []);
  return <p>Island</p>;
}
`;

/** A map from each generated line's `throw` to an original line (0-based columns). */
function chunkMap(source: string, code: string, lines: Record<number, number>, content: string) {
  const generator = new SourceMapGenerator({ file: "chunk.js" });
  for (const [generated, original] of Object.entries(lines)) {
    const text = code.split("\n")[Number(generated) - 1] ?? "";
    generator.addMapping({ generated: { line: Number(generated), column: 0 }, original: { line: original, column: 0 }, source });
    const at = text.indexOf("throw");
    if (at > 0)
      generator.addMapping({ generated: { line: Number(generated), column: at }, original: { line: original, column: 2 }, source });
  }
  generator.setSourceContent(source, content);
  const json = JSON.parse(generator.toString());
  // As Vite's maps are: an object with toString().
  return { ...json, toString: () => JSON.stringify(json) };
}

const BUNDLED_CHUNK =
  'import{r as e}from"./ready.Cx81aB2q.js";e(()=>{\nif(document.querySelector("#bundled"))throw new Error("bundled script failed")});';
const LATER_CHUNK = '\nconst e=10;setTimeout(()=>{\nthrow new Error("inlined script failed")},e);\n';
const ISLAND_CHUNK =
  'import{y as e}from"./hooks.module.Bq2x.js";function t(){return e(()=>{\nthrow new Error("island failed")},[]),null}export{t as default};';

interface Hooks {
  onLog: (level: string, log: { code?: string }) => boolean | undefined;
  generateBundle: { handler: (options: object, bundle: Record<string, unknown>) => void };
  writeBundle: { handler: (options: { dir: string }, bundle: Record<string, unknown>) => void };
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), "vigie-hidden-maps-"));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write("package.json", '{ "scripts": { "build": "astro build" } }\n');
  write("src/components/Bundled.astro", BUNDLED_ASTRO);
  write("src/components/Later.astro", LATER_ASTRO);
  write("src/components/Island.tsx", ISLAND);
  write("src/scripts/ready.ts", "export function ready(work: () => void) { work(); }\n");

  // The generated config, imported as Astro imports it, and its integration run as Astro runs it.
  const plan = planCheckBuild(projectAt(root), ["npm", "run", "build"], true);
  assert.equal(plan.maps, true);
  assert.deepEqual(plan.command, ["npm", "run", "build", "--", "--config", ".opencode/build/astro.config.mjs"]);
  const config = (await import(pathToFileURL(join(root, ".opencode", "build", "astro.config.mjs")).href)).default;
  const integration = config.integrations.at(-1);
  let added: { plugins: Hooks[]; environments?: { client: { build: { sourcemap: string } } } } | undefined;
  integration.hooks["astro:config:setup"]({
    config: { vite: {} },
    updateConfig: (update: { vite: typeof added }) => (added = update.vite),
  });
  assert.equal(added?.environments?.client.build.sourcemap, "hidden");
  const plugin = added?.plugins[0] as Hooks;
  // The maps vigie turned on make rolldown name plugins that transform without one: not a warning of the site's.
  assert.equal(plugin.onLog("warn", { code: "SOURCEMAP_BROKEN" }), false);
  assert.equal(plugin.onLog("warn", { code: "EVAL" }), undefined);

  const dir = join(root, "dist");
  const chunk = (fileName: string, code: string, map: object, facade: string) => ({
    type: "chunk",
    fileName,
    code,
    map,
    facadeModuleId: facade,
  });
  const bundled = "_astro/Bundled.astro_astro_type_script_index_0_lang.DkP3sQ1x.js";
  const later = "_astro/Later.astro_astro_type_script_index_0_lang.Ab12Cd34.js";
  const island = "_astro/Island.BC_PhwWr.js";
  const bundle: Record<string, unknown> = {
    [bundled]: chunk(
      bundled,
      BUNDLED_CHUNK,
      chunkMap("../../src/components/Bundled.astro?astro&type=script&index=0&lang.ts", BUNDLED_CHUNK, { 1: 3, 2: 5 }, BUNDLED_SCRIPT),
      `${root}/src/components/Bundled.astro?astro&type=script&index=0&lang.ts`,
    ),
    [later]: chunk(
      later,
      LATER_CHUNK,
      chunkMap("../../src/components/Later.astro?astro&type=script&index=0&lang.ts", LATER_CHUNK, { 2: 2, 3: 3 }, LATER_SCRIPT),
      `${root}/src/components/Later.astro?astro&type=script&index=0&lang.ts`,
    ),
    [island]: chunk(
      island,
      ISLAND_CHUNK,
      chunkMap("../../src/components/Island.tsx", ISLAND_CHUNK, { 1: 4, 2: 5 }, ISLAND),
      `${root}/src/components/Island.tsx`,
    ),
  };
  plugin.generateBundle.handler({}, bundle);
  // Astro inlines the small script into the HTML and drops its chunk; Vite writes the rest with their maps.
  delete bundle[later];
  for (const name of [bundled, island]) {
    write(`dist/${name}`, (bundle[name] as { code: string }).code);
    write(`dist/${name}.map`, "{}");
  }
  plugin.writeBundle.handler({ dir }, bundle);

  served.set(`${ORIGIN}/${bundled}`, BUNDLED_CHUNK);
  served.set(`${ORIGIN}/${island}`, ISLAND_CHUNK);
  served.set(
    `${ORIGIN}/later/`,
    `<!DOCTYPE html><html><head><title>Later</title></head>\n<body><p>Later.</p><script type="module">${LATER_CHUNK.trim()}</script>\n</body></html>`,
  );
  served.set(`${ORIGIN}/raw/`, "<html><body>\n<script>\n  const delay = 10;\n</script></body></html>");
});

after(() => rmSync(root, { recursive: true, force: true }));

describe("the build for checking", () => {
  test("keeps one map per script, none in the output", () => {
    assert.equal(readdirSync(hiddenMapsDir(root)).length, 3);
    assert.deepEqual(
      readdirSync(join(root, "dist", "_astro")).filter((name) => name.endsWith(".map")),
      [],
    );
  });

  test("a build script that is not a plain astro build runs as it is, and says so", () => {
    assert.equal(whyNotPlain("astro build"), undefined);
    assert.equal(whyNotPlain("astro build --verbose"), undefined);
    assert.match(whyNotPlain("astro build && pagefind --site dist") ?? "", /runs more than astro build/);
    assert.match(whyNotPlain("astro check && astro build") ?? "", /not astro build/);
    assert.match(whyNotPlain("astro build --config other.mjs") ?? "", /its own config/);
    assert.match(whyNotPlain(undefined) ?? "", /no build script/);
    const other = planCheckBuild(projectAt(root), ["pnpm", "build"], false);
    assert.deepEqual(other.command, ["pnpm", "build"]);
    assert.equal(other.maps, false);
    assert.match(other.note, /^built as is, without source maps \(vigie.config.json names the build command\)/);
  });

  test("the wrapper imports the user's config by its path from the state folder", () => {
    const text = wrapperConfig("../../astro.config.ts", root, join(root, ".opencode", "build", "maps"));
    assert.match(text, /^import userConfig from "\.\.\/\.\.\/astro\.config\.ts";$/m);
    assert.match(wrapperConfig(undefined, root, "m"), /^const userConfig = \{\};$/m);
  });
});

describe("stack frames of built scripts through the kept maps", () => {
  test("a frame in a component script's chunk: the .astro file and the line of the throw", async () => {
    const files = new SourceFiles(root);
    const column = BUNDLED_CHUNK.split("\n")[1]?.indexOf("throw") ?? 0;
    const frames = [{ url: `${ORIGIN}/_astro/Bundled.astro_astro_type_script_index_0_lang.DkP3sQ1x.js`, line: 2, column: column + 1 }];
    assert.deepEqual(await locateStack(files, frames, `${ORIGIN}/bundled/`, fetchText), { source: "src/components/Bundled.astro:7" });
  });

  test("a frame in a script the build inlined into the page: its component's line", async () => {
    const files = new SourceFiles(root);
    const html = served.get(`${ORIGIN}/later/`) ?? "";
    const lines = html.split("\n");
    const line = lines.findIndex((one) => one.includes("throw")) + 1;
    const column = (lines[line - 1] ?? "").indexOf("throw") + 1;
    const script = inlineScriptAt(html, line, column);
    assert.equal(script?.line, 2);
    assert.equal(script?.column, 1);
    const located = await locateStack(files, [{ url: `${ORIGIN}/later/`, line, column }], `${ORIGIN}/later/`, fetchText);
    assert.deepEqual(located, { source: "src/components/Later.astro:5" });
  });

  test("a frame in an island's chunk: the component's line; the island's chunk: its component file", async () => {
    const files = new SourceFiles(root);
    const frames = [{ url: `${ORIGIN}/_astro/Island.BC_PhwWr.js`, line: 2, column: 1 }];
    assert.deepEqual(await locateStack(files, frames, `${ORIGIN}/island/`, fetchText), { source: "src/components/Island.tsx:5" });
    assert.deepEqual(await locateIsland(files, "/_astro/Island.BC_PhwWr.js", `${ORIGIN}/island/`, fetchText), {
      source: "src/components/Island.tsx",
    });
  });

  test("a frame that maps into a dependency is not the line to fix", async () => {
    const files = new SourceFiles(root);
    const code = "console.error(e);";
    const generator = new SourceMapGenerator({ file: "x.js" });
    generator.addMapping({
      generated: { line: 1, column: 0 },
      original: { line: 3307, column: 4 },
      source: "node_modules/@vue/runtime-core/dist/runtime-core.esm-bundler.js",
    });
    const json = JSON.parse(generator.toString());
    writeFileSync(join(hiddenMapsDir(root), `${scriptKey(code)}.json`), JSON.stringify({ ...json, skipLines: 0, sourcesContent: [null] }));
    served.set(`${ORIGIN}/_astro/runtime-core.Qw3rTy12.js`, code);
    const located = await locateStack(
      files,
      [{ url: `${ORIGIN}/_astro/runtime-core.Qw3rTy12.js`, line: 1, column: 1 }],
      `${ORIGIN}/vue/`,
      fetchText,
    );
    assert.match("sourceUnknown" in located ? located.sourceUnknown : "", /node_modules\/@vue\/runtime-core.*a dependency/);
  });

  test("a script no kept map knows: located by its text as before, or said unknown", async () => {
    const files = new SourceFiles(root);
    const located = await locateStack(files, [{ url: `${ORIGIN}/raw/`, line: 3, column: 3 }], `${ORIGIN}/raw/`, fetchText);
    assert.deepEqual(located, { source: "src/components/Later.astro:3" });
    const chunk = await locateIsland(files, "/_astro/Island.Zz9yXw8v.js", `${ORIGIN}/island/`, fetchText);
    assert.match(
      "sourceUnknown" in chunk ? chunk.sourceUnknown : "",
      /hashed chunk with no manifest or source map; candidates: src\/components\/Island\.tsx/,
    );
    rmSync(hiddenMapsDir(root), { recursive: true, force: true });
    assert.equal(existsSync(hiddenMapsDir(root)), false);
    const frames = [{ url: `${ORIGIN}/_astro/Bundled.astro_astro_type_script_index_0_lang.DkP3sQ1x.js`, line: 2, column: 5 }];
    const unmapped = await locateStack(files, frames, `${ORIGIN}/bundled/`, fetchText);
    assert.match("sourceUnknown" in unmapped ? unmapped.sourceUnknown : "", /no source map/);
  });
});
