// The causes of a crawl's 5xx answers, shared by validate's crawl step and the crawl tool:
// each failing URL asked again of a real loopback server while its log is read, and the
// causes put on the pages' faults (the page's status, the requests it made).
import assert from "node:assert/strict";
import { once } from "node:events";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { SiteRoute } from "../../../src/core/astro/rendering.ts";
import { faultSummary } from "../../../src/core/browser/page/faultView.ts";
import {
  type CheckedPage,
  causeLines,
  failingUrls,
  failureCauses,
  faultsWithCauses,
  firstFault,
} from "../../../src/core/checks/pageCauses.ts";
import { devLog } from "../../../src/core/checks/serverErrors.ts";

const root = mkdtempSync(join(tmpdir(), "vigie-page-causes-"));
mkdirSync(join(root, "src", "pages", "api"), { recursive: true });
writeFileSync(
  join(root, "src/pages/now.astro"),
  '---\nexport const prerender = false;\nthrow new Error("the clock is broken");\n---\n<h1>Now</h1>\n',
);
writeFileSync(join(root, "src/pages/api/stats.json.ts"), 'export const GET = () => {\n  throw new Error("stats are down");\n};\n');
const project = { root, stateDir: join(root, ".opencode") } as never;
// The dev server's log, where vigie keeps it.
mkdirSync(join(root, ".opencode"), { recursive: true });
const LOG = join(root, ".opencode", "dev-server.log");
writeFileSync(LOG, "20:00:00 [vite] connected.\n");

const route = (path: string, component: string, type: SiteRoute["type"] = "page"): SiteRoute => ({
  route: path,
  component,
  type,
  prerender: false,
  pattern: `^${path.replace(/\//g, "\\/")}\\/?$`,
  params: [],
});
const routes = [route("/now", "src/pages/now.astro"), route("/api/stats.json", "src/pages/api/stats.json.ts", "endpoint")];

// A production server as the node adapter's is: a 5xx answer, and the error in its output (the stack in bundled chunks).
let output = "";
const say = (text: string) => {
  output += text;
  appendFileSync(LOG, text);
};
const server = createServer((request, response) => {
  if (request.url === "/now/") {
    say(`20:00:00 [ERROR] Error: the clock is broken\n    at file://${root}/dist/server/chunks/now_X1.mjs:3:7\n`);
    response.writeHead(500).end("");
  } else if (request.url === "/api/stats.json") {
    say(`20:00:01 [ERROR] Error: stats are down\n    at file://${root}/dist/server/chunks/stats_X2.mjs:2:9\n`);
    response.writeHead(500).end("");
  } else response.writeHead(200, { "content-type": "text/html" }).end("<h1>ok</h1>");
});
let base = "";
before(async () => {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => {
  server.close();
  rmSync(root, { recursive: true, force: true });
});

function page(path: string, overrides: Partial<CheckedPage> = {}): CheckedPage {
  return { path, url: `${base}${path}`, status: 200, errors: [], warnings: [], failedRequests: [], mermaid: [], ...overrides };
}

const pages = () => [
  page("/now/", {
    status: 500,
    errors: [{ message: "Failed to load resource: the server responded with a status of 500", count: 1, frames: [] }],
    devError: { name: "Error", message: "the dev server answered with its error page" },
  }),
  page("/", {
    errors: [{ message: "Failed to load resource: the server responded with a status of 500", count: 1, frames: [] }],
    failedRequests: [{ url: `${base}/api/stats.json`, status: 500, type: "fetch" }],
  }),
  page("/about/"),
];

test("the failing URLs: 5xx pages, then the 5xx requests to the same server", () => {
  assert.deepEqual(failingUrls(pages(), base), [`${base}/now/`, `${base}/api/stats.json`]);
});

test("each 5xx answer's cause from the server's output: the error, and the route's file at the line that writes it", async () => {
  const crawled = pages();
  const causes = await failureCauses(project, base, crawled, { log: () => output, base: "/", routes, outDirs: [join(root, "dist")] });
  assert.deepEqual(causes.get(`${base}/now/`), {
    name: "Error",
    message: "the clock is broken",
    source: "src/pages/now.astro:3",
    from: "server log",
    status: 500,
  });
  assert.equal((causes.get(`${base}/api/stats.json`) as { source: string }).source, "src/pages/api/stats.json.ts:2");

  const now = faultsWithCauses(crawled[0] as CheckedPage, base, causes);
  assert.deepEqual(now[0], {
    kind: "status",
    message: "HTTP 500: Error: the clock is broken",
    count: 1,
    status: 500,
    serverError: "Error: the clock is broken",
    located: { source: "src/pages/now.astro:3" },
  });
  // The dev error page is not repeated once the server's own words are known.
  assert.deepEqual(
    now.map((fault) => fault.kind),
    ["status", "error"],
  );
  assert.equal(faultSummary(now), "HTTP 500, 1 error");
  assert.equal(firstFault(now), now[0]);

  // The home's request to the failing endpoint names the endpoint's error and source; it is the home's first fault.
  const home = faultsWithCauses(crawled[1] as CheckedPage, base, causes);
  const first = firstFault(home);
  assert.equal(first?.kind, "request");
  assert.equal(first?.message, "500 fetch /api/stats.json: Error: stats are down");
  assert.deepEqual(first?.located, { source: "src/pages/api/stats.json.ts:2" });
});

test("no log to read: only the route's source file; no route: nothing", async () => {
  const causes = await failureCauses(project, base, pages(), { base: "/", routes });
  assert.deepEqual(causes.get(`${base}/now/`), { source: "src/pages/now.astro" });
  const faults = faultsWithCauses(pages()[0] as CheckedPage, base, causes);
  const [status] = faults;
  assert.deepEqual([status?.message, status?.located, status?.serverError], ["HTTP 500", { source: "src/pages/now.astro" }, undefined]);
  assert.ok(
    faults.some((fault) => fault.kind === "dev-error"),
    "without the server's words, the dev error page stays",
  );
  assert.equal((await failureCauses(project, base, pages(), { base: "/" })).size, 0);
});

test("an empty 5xx body (Chromium's own error page, no status): the real status, and none of that error page's noise", async () => {
  const empty = page("/now/", {
    status: 0,
    errors: [
      {
        message: "Failed to load resource: the server responded with a status of 500 ()",
        count: 1,
        frames: [],
        at: "chrome-error://chromewebdata/",
      },
    ],
    failedRequests: [{ url: `${base}/now/`, status: 500, type: "document" }],
  });
  const causes = await failureCauses(project, base, [empty], { log: () => output, base: "/", routes, outDirs: [join(root, "dist")] });
  const faults = faultsWithCauses(empty, base, causes);
  assert.deepEqual(
    faults.map((fault) => [fault.kind, fault.message]),
    [["status", "HTTP 500: Error: the clock is broken"]],
  );
});

test("js_errors' causes: a page's 5xx answers asked again of the dev server while its log is read", async () => {
  const [home] = pages().slice(1);
  const checked = home as CheckedPage;
  const outDirs = [join(root, "dist")];
  const causes = await failureCauses(project, new URL(checked.url).origin, [checked], { log: devLog(project), base: "/", routes, outDirs });
  assert.deepEqual(causeLines(causes), ["/api/stats.json: Error: stats are down (src/pages/api/stats.json.ts:2)"]);
});
