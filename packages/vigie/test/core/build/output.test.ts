// The build output reader on the shapes Astro 7 prints (captured from real builds of
// the blog with one fault each; paths shortened).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { locateIssue } from "../../../src/core/build/locate.ts";
import { fallbackError, parseBuildOutput } from "../../../src/core/build/output.ts";
import { projectAt } from "../../../src/core/project.ts";

const MDX_PARSE_ERROR = `10:25:02 [build] Building static entrypoints...
10:25:02 [ERROR] [vite] ✗ Build failed in 2.96s
12:314: Could not parse expression with oxc: Expected \`,\` or \`)\` but found \`Identifier\` (mdx-jsx:unexpected-character)
  Location:
    /blog/src/content/articles/en/orphan-dev-servers.mdx:12:314
  Stack trace:
    at TransformPluginContextImpl.handler (file:///blog/node_modules/@astrojs/mdx/dist/vite-plugin-mdx.js:64:17)
`;

const RENDER_ERROR = ` generating static routes 
10:25:18   ├─ /404.html (+20ms) 
    at _createMdxContent (file:///blog/dist/.prerender/chunks/orphan-dev-servers_D2yBqRbl.mjs:30:4)
    at AstroComponentInstance.Callout [as factory] (file:///blog/dist/.prerender/chunks/ui_BhcoShSs.mjs:15:10)
10:25:18 [ERROR] [build] Caught error rendering /en/articles/orphan-dev-servers: ReferenceError: foo is not defined
foo is not defined
  Hint:
    This issue often occurs when your MDX component encounters runtime errors.
  Stack trace:
    at _createMdxContent (file:///blog/dist/.prerender/chunks/orphan-dev-servers_D2yBqRbl.mjs:30:4)
`;

const SCHEMA_ERROR = `10:26:54 [content] Syncing content
[InvalidContentEntryDataError] articles → en/orphan-dev-servers data does not match collection schema.

  lang: Invalid option: expected one of "fr"|"en"

  Hint:
    See https://docs.astro.build/en/guides/content-collections/ for more information on content schemas.
  Location:
    /blog/src/content/articles/en/orphan-dev-servers.mdx:0:0
`;

const WARNINGS = `10:27:21 [WARN] [vite] [MODULE_LEVEL_DIRECTIVE] The semantics of the module level directive "use astro:head-inject" in "src/a.mdx?astroPropagatedAssets" may not be preserved when bundling.
   ╭─[ src/a.mdx?astroPropagatedAssets:2:6 ]
   │
 2 │               "use astro:head-inject";
───╯

10:27:26 [WARN] [vite] [plugin builtin:vite-reporter] 
(!) Some chunks are larger than 100 kB after minification. Consider:
- Using dynamic import() to code-split the application
10:27:26 [vite] ✓ built in 4.95s
`;

describe("parseBuildOutput", () => {
  test("an MDX parse error keeps the source position", () => {
    const { errors, warnings } = parseBuildOutput(MDX_PARSE_ERROR);
    assert.equal(warnings.length, 0);
    assert.equal(errors.length, 1);
    assert.match(errors[0]?.message ?? "", /^Could not parse expression with oxc/);
    assert.equal(errors[0]?.file, "/blog/src/content/articles/en/orphan-dev-servers.mdx");
    assert.equal(errors[0]?.line, 12);
    assert.equal(errors[0]?.column, 314);
    assert.equal(errors[0]?.sourcePosition, true);
  });

  test("a render error names its route and keeps the frames printed before it", () => {
    const [error] = parseBuildOutput(RENDER_ERROR).errors;
    assert.equal(error?.message, "ReferenceError: foo is not defined");
    assert.equal(error?.route, "/en/articles/orphan-dev-servers");
    assert.ok(error?.stack?.some((frame) => frame.includes("AstroComponentInstance.Callout")));
  });

  test("a schema error gives the field, and no position when Astro prints 0:0", () => {
    const [error] = parseBuildOutput(SCHEMA_ERROR).errors;
    assert.equal(error?.code, "InvalidContentEntryDataError");
    assert.match(error?.message ?? "", /does not match collection schema\. lang: Invalid option/);
    assert.deepEqual(error?.details, ['lang: Invalid option: expected one of "fr"|"en"']);
    assert.equal(error?.line, undefined);
  });

  test("warnings with their code and location, the chunk-size one from its second line", () => {
    const { errors, warnings } = parseBuildOutput(WARNINGS);
    assert.equal(errors.length, 0);
    assert.equal(warnings.length, 2);
    assert.equal(warnings[0]?.code, "MODULE_LEVEL_DIRECTIVE");
    assert.equal(warnings[0]?.file, "src/a.mdx?astroPropagatedAssets");
    assert.equal(warnings[1]?.message, "Some chunks are larger than 100 kB after minification.");
  });

  test("a failure we do not recognise falls back on its most telling line", () => {
    assert.equal(
      fallbackError(
        '> x build\n> astro build\n\nnpm error Missing script: "build"\nnpm error A complete log of this run can be found in: /x.log\n',
      ).message,
      'npm error Missing script: "build"',
    );
  });
});

// A page whose render fetched a host this machine cannot reach (Astro 7, offline).
const FETCH_OFFLINE = ` generating static routes 
00:04:47   ├─ /remote/index.html00:04:47 [ERROR] TypeError: fetch failed
00:04:47 [ERROR] [build] Caught error rendering /remote: TypeError: fetch failed
fetch failed
  Stack trace:

  Caused by:
  getaddrinfo ENOTFOUND plus.unsplash.com
    at GetAddrInfoReqWrap.onlookupall [as oncomplete] (node:dns:123:26)
`;

describe("a build that needs the network", () => {
  test("the page, its cause and the host it could not reach; located at the line that names the host", () => {
    const [error] = parseBuildOutput(FETCH_OFFLINE).errors;
    assert.deepEqual(
      { route: error?.route, message: error?.message, cause: error?.cause, host: error?.host, reach: error?.reach },
      {
        route: "/remote",
        message: "TypeError: fetch failed",
        cause: "getaddrinfo ENOTFOUND plus.unsplash.com",
        host: "plus.unsplash.com",
        reach: "not-found",
      },
    );
    const root = mkdtempSync(join(tmpdir(), "vigie-fetch-offline-"));
    try {
      mkdirSync(join(root, "src", "pages"), { recursive: true });
      writeFileSync(
        join(root, "src", "pages", "remote.astro"),
        '---\nconst size = 1;\nconst response = await fetch("https://plus.unsplash.com/photo.jpg");\n---\n<p>{size}</p>\n',
      );
      const located = locateIssue(projectAt(root), error as NonNullable<typeof error>);
      assert.deepEqual([located.file, located.line], ["src/pages/remote.astro", 3]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("a connection refused names the address", () => {
    const output = FETCH_OFFLINE.replace("getaddrinfo ENOTFOUND plus.unsplash.com", "connect ECONNREFUSED 203.0.113.9:443");
    const [error] = parseBuildOutput(output).errors;
    assert.deepEqual([error?.host, error?.reach], ["203.0.113.9", "no-connection"]);
  });

  test("Astro 5 and 6: the error glued to the page's output path, the page's file from the line above", () => {
    const output = [
      " generating static routes ",
      "10:35:22 ▶ src/pages/404.astro",
      "10:35:22   └─ /404.html (+25ms) ",
      "10:35:22 ▶ src/pages/homes/personal.astro",
      "10:35:22   └─ /homes/personal/index.htmlfetch failed",
      "  Stack trace:",
      "",
      "  Caused by:",
      "  getaddrinfo ENOTFOUND plus.unsplash.com",
      "    at GetAddrInfoReqWrap.onlookupall [as oncomplete] (node:dns:123:26)",
    ].join("\n");
    const { errors } = parseBuildOutput(output);
    assert.equal(errors.length, 1, JSON.stringify(errors));
    const [error] = errors;
    assert.deepEqual(
      { route: error?.route, file: error?.file, message: error?.message, cause: error?.cause, host: error?.host, reach: error?.reach },
      {
        route: "/homes/personal",
        file: "src/pages/homes/personal.astro",
        message: "fetch failed",
        cause: "getaddrinfo ENOTFOUND plus.unsplash.com",
        host: "plus.unsplash.com",
        reach: "not-found",
      },
    );
  });
});
