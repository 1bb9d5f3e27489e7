// A 5xx's cause from what the server logged: Astro's error and the source that threw.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import type { SiteRoute } from "../../../src/core/astro/rendering.ts";
import { causeInLog, describeCause } from "../../../src/core/checks/serverErrors.ts";

const root = mkdtempSync(join(tmpdir(), "vigie-server-errors-"));
after(() => rmSync(root, { recursive: true, force: true }));
mkdirSync(join(root, "src", "pages", "greet"), { recursive: true });
writeFileSync(
  join(root, "src/pages/greet/[name].astro"),
  '---\nconst { name } = Astro.params;\nif (name === "zed") throw new Error("no greeting for zed");\n---\n<h1>{name}</h1>\n',
);
const project = { root } as never;
const routes: SiteRoute[] = [
  {
    route: "/greet/[name]",
    component: "src/pages/greet/[name].astro",
    type: "page",
    prerender: false,
    pattern: "^\\/greet\\/([^/]+?)\\/?$",
    params: ["name"],
  },
];

test("a production log: the error, and the route's file at the line that writes the message", () => {
  const log = [
    "16:18:58 [ERROR] Error: no greeting for zed",
    `    at file://${root}/dist/server/chunks/_name__Cn7zBrar.mjs:16:28`,
    `    at renderPage (file://${root}/dist/server/chunks/server_CsbQizt4.mjs:2302:27)`,
  ].join("\n");
  const cause = causeInLog(project, log, { pathname: "/greet/zed/", base: "/", routes, outDirs: [join(root, "dist")] });
  assert.deepEqual(cause, { name: "Error", message: "no greeting for zed", source: "src/pages/greet/[name].astro:3", from: "server log" });
  assert.equal(describeCause(cause), "Error: no greeting for zed (src/pages/greet/[name].astro:3)");
});

test("a dev log: the first frame in the project's sources", () => {
  const log = `12:00:00 [ERROR] TypeError: x is undefined\n    at ${root}/node_modules/astro/x.js:1:1\n    at ${root}/src/pages/greet/[name].astro:3:30\n`;
  const cause = causeInLog(project, log, { pathname: "/greet/zed/", base: "/", routes });
  assert.equal(cause?.name, "TypeError");
  assert.equal(cause?.source, "src/pages/greet/[name].astro:3");
});

test("no error logged: undefined", () => {
  assert.equal(causeInLog(project, "16:18:57 [@astrojs/node] Server listening\n", { pathname: "/", base: "/" }), undefined);
});
