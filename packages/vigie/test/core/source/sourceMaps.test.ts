// Stack frames through real source maps served over HTTP (parsed by source-map-js): a dev
// module with Vite's inline `data:` map, a component script's map, and a built chunk whose
// map is a file beside it.
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { SourceMapGenerator } from "source-map-js";
import { SourceFiles } from "../../../src/core/source/files.ts";
import { cachedFetcher } from "../../../src/core/source/sourceMaps.ts";
import { locateStack } from "../../../src/core/source/stacks.ts";

let root: string;
let server: Server;
let origin: string;
const routes = new Map<string, string>();

/** A map of generated line N to original line `lines[N - 1]` of `source`, column 0 to 0. */
function map(source: string, lines: number[], content?: string): string {
  const generator = new SourceMapGenerator({ file: "out.js" });
  for (const [index, original] of lines.entries()) {
    generator.addMapping({ generated: { line: index + 1, column: 0 }, original: { line: original, column: 0 }, source });
  }
  if (content) generator.setSourceContent(source, content);
  return generator.toString();
}

const inline = (json: string) => `//# sourceMappingURL=data:application/json;base64,${Buffer.from(json).toString("base64")}`;

before(async () => {
  root = mkdtempSync(join(tmpdir(), "vigie-maps-"));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write("src/scripts/tabs.ts", "// tabs\n\nexport function select(): void {\n  throw new Error('x');\n}\n");
  write(
    "src/components/Widget.astro",
    '---\n---\n<div class="widget"></div>\n<script is:inline>console.log(1)</script>\n<script>\n  const node = document.querySelector(".widget");\n  if (node) throw new Error("widget");\n</script>\n',
  );
  // Written with single quotes; the compiled script (and its map's text) has double quotes.
  write(
    "src/components/Quoted.astro",
    "<p>q</p>\n<script>\n  const ready = true;\n\n  if (ready) {\n    throw new Error('boom');\n  }\n</script>\n",
  );
  server = createServer((request, response) => {
    const body = routes.get(request.url ?? "");
    response.writeHead(body === undefined ? 404 : 200, { "content-type": "text/javascript" }).end(body ?? "not found");
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  routes.set("/src/scripts/tabs.ts", `export function select() {\n  throw new Error('x');\n}\n${inline(map("tabs.ts", [3, 4, 5]))}\n`);
  const script = 'const node = document.querySelector(".widget");\nif (node) throw new Error("widget");';
  routes.set(
    "/src/components/Widget.astro?astro&type=script&index=0&lang.ts",
    `${script}\n${inline(map("Widget.astro?astro&type=script&index=0&lang.ts", [1, 2], script))}\n`,
  );
  routes.set(
    "/_astro/Widget.astro_astro_type_script_index_0_lang.Bx1.js",
    'const n=1;if(n)throw new Error("widget");\n//# sourceMappingURL=Widget.js.map\n',
  );
  routes.set("/_astro/Widget.js.map", map("../src/components/Widget.astro?astro&type=script&index=0&lang.ts", [2], script));
  routes.set("/_astro/vendor.Zz9.js", "throw 1;\n");
  const quoted = 'const ready = true;\nif (ready) {\n  throw new Error("boom");\n}';
  routes.set(
    "/src/components/Quoted.astro?astro&type=script&index=0&lang.ts",
    `${quoted}\n${inline(map("Quoted.astro?astro&type=script&index=0&lang.ts", [1, 2, 3, 4], quoted))}\n`,
  );
});

after(async () => {
  server?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("stack frames through source maps", () => {
  const locate = (path: string, line: number) =>
    locateStack(new SourceFiles(root), [{ url: `${origin}${path}`, line, column: 3 }], `${origin}/page/`, cachedFetcher());

  test("a dev module (/src/...ts with an inline map): the file's own line", async () => {
    assert.deepEqual(await locate("/src/scripts/tabs.ts", 2), { source: "src/scripts/tabs.ts:4" });
  });

  test("a component's script: its line in the .astro file, is:inline scripts not counted", async () => {
    assert.deepEqual(await locate("/src/components/Widget.astro?astro&type=script&index=0&lang.ts", 2), {
      source: "src/components/Widget.astro:7",
    });
  });

  test("a dev throw's own line, whatever its quotes (the compiler rewrites them)", async () => {
    assert.deepEqual(await locate("/src/components/Quoted.astro?astro&type=script&index=0&lang.ts", 3), {
      source: "src/components/Quoted.astro:6",
    });
  });

  test("a built chunk with a map file beside it; a chunk without one says so", async () => {
    assert.deepEqual(await locate("/_astro/Widget.astro_astro_type_script_index_0_lang.Bx1.js", 1), {
      source: "src/components/Widget.astro:7",
    });
    assert.deepEqual(await locate("/_astro/vendor.Zz9.js", 1), { sourceUnknown: "/_astro/vendor.Zz9.js: the script has no source map" });
    assert.deepEqual(await locate("/_astro/gone.js", 1), { sourceUnknown: "/_astro/gone.js: the script could not be fetched again" });
  });
});
