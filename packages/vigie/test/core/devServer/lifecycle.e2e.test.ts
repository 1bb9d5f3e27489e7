// start → status → http_get → logs → stop on a real Astro dev server of a blog copy,
// through the tool definitions as every face calls them.
import assert from "node:assert/strict";
import { appendFileSync, copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { MAX_ANSWER_BYTES } from "../../../src/core/answer.ts";
import { readDevPort } from "../../../src/core/devServer/index.ts";
import { listeningInodes } from "../../../src/core/devServer/ports.ts";
import { groupMembers } from "../../../src/core/process/inspect.ts";
import { type BlogCopy, copyBlog } from "../../support/blog.ts";
import { call, freePort, killEverythingIn, processesUnder, waitFor } from "./helpers.ts";

const BROKEN_ARTICLE = "src/content/articles/en/orphan-dev-servers.mdx";
const BROKEN_PAGE = "/en/articles/orphan-dev-servers/";

function size(answer: unknown): number {
  return Buffer.byteLength(JSON.stringify(answer));
}

describe("the dev server's lifecycle through the blog_dev tools", () => {
  let copy: BlogCopy;
  let port: number;
  let pid: number;

  before(async () => {
    copy = copyBlog("dev-lifecycle");
    // A page that redirects, a binary file, and an article whose MDX does not compile.
    writeFileSync(join(copy.root, "src/pages/go-home.astro"), '---\nreturn Astro.redirect("/en/");\n---\n');
    copyFileSync(join(copy.root, "src/assets/figures/dev-loop.png"), join(copy.root, "public/fixture.png"));
    appendFileSync(join(copy.root, BROKEN_ARTICLE), "\nBroken {foo bar} expression.\n");
    port = await freePort();
  });

  after(() => {
    killEverythingIn(copy);
    copy.remove();
  });

  test("start waits until the server serves, answers its real port and records it", async () => {
    const answer = await call(copy, "start", { port });
    assert.equal(answer.status, "started", JSON.stringify(answer));
    assert.equal(answer.port, port);
    assert.equal(answer.url, `http://127.0.0.1:${port}/`);
    assert.equal(typeof answer.pid, "number");
    assert.equal(typeof answer.readyMs, "number");
    pid = answer.pid as number;
    assert.equal(readFileSync(join(copy.stateDir, "dev-server.port"), "utf8").trim(), String(port));
    assert.equal(readFileSync(join(copy.stateDir, "dev-server.pid"), "utf8").trim(), String(pid));
    const record = JSON.parse(readFileSync(join(copy.stateDir, "dev-server.json"), "utf8"));
    assert.equal(record.pgid, pid);
    assert.equal(typeof record.startTime, "number");
    assert.deepEqual(record.command.slice(0, 3), ["npm", "run", "dev"]);
    assert.equal(readDevPort(copy), port);
    assert.ok(listeningInodes(port).size > 0, "the port listens");
  });

  test("a second start is already_running with the same pid", async () => {
    const answer = await call(copy, "start", {});
    assert.equal(answer.status, "already_running");
    assert.equal(answer.pid, pid);
    assert.equal(answer.port, port);
    const other = await call(copy, "start", { port: port + 1, mode: "preview" });
    assert.equal(other.status, "already_running");
    assert.equal(other.pid, pid);
    assert.match(String(other.hint), /blog_dev_stop/);
  });

  test("http_get answers status, type, length, title and a text excerpt", async () => {
    // The first request compiles the page: give it time on a busy machine.
    const answer = await call(copy, "http_get", { path: "/", timeoutMs: 60_000 });
    assert.equal(answer.status, 200, JSON.stringify(answer));
    assert.match(String(answer.contentType), /text\/html/);
    assert.ok((answer.bodyLength as number) > 1000);
    assert.equal(answer.title, "Vigie");
    assert.ok(String(answer.bodyExcerpt).length <= 500);
    assert.doesNotMatch(String(answer.bodyExcerpt), /<[a-z]/);
    assert.equal(typeof answer.ms, "number");
    assert.ok(size(answer) <= MAX_ANSWER_BYTES);
  });

  test("status: running, healthy, pid, port, url, uptime", async () => {
    const answer = await waitFor("a healthy status", async () => {
      const status = await call(copy, "status");
      return status.healthy === true ? status : undefined;
    });
    assert.equal(answer.running, true);
    assert.equal(answer.pid, pid);
    assert.equal(answer.port, port);
    assert.equal(answer.url, `http://127.0.0.1:${port}/`);
    assert.equal(typeof answer.uptimeS, "number");
  });

  test("http_get reports a redirect without following it", async () => {
    const answer = await call(copy, "http_get", { path: "/go-home" });
    assert.ok([301, 302, 303, 307, 308].includes(answer.status as number), JSON.stringify(answer));
    assert.equal(answer.redirectedTo, "/en/");
  });

  test("http_get gives a binary body's type and length only", async () => {
    const answer = await call(copy, "http_get", { path: "/fixture.png" });
    assert.equal(answer.status, 200);
    assert.equal(answer.contentType, "image/png");
    assert.equal(answer.bodyLength, statSync(join(copy.root, "public/fixture.png")).size);
    assert.equal(answer.bodyExcerpt, undefined);
    assert.equal(answer.title, undefined);
  });

  test("http_get names a missing page's status with a hint", async () => {
    const answer = await call(copy, "http_get", { path: "/no-such-page/?q=1" });
    assert.equal(answer.status, 404);
    assert.equal(typeof answer.hint, "string");
  });

  test("http_get on Astro's dev error page gives the error's name and the message logged for it", async () => {
    const answer = await call(copy, "http_get", { path: BROKEN_PAGE, timeoutMs: 60_000 });
    assert.equal(answer.status, 500, JSON.stringify(answer));
    assert.equal(answer.errorName, "MDXError");
    assert.match(String(answer.errorMessage), /Could not parse expression/);
    assert.match(String(answer.errorFile), /^src\/content\/articles\/en\/orphan-dev-servers\.mdx:\d+/);
    assert.equal(typeof answer.hint, "string");
    assert.ok(size(answer) <= MAX_ANSWER_BYTES);
  });

  test("logs: the last lines, ANSI stripped, small", async () => {
    const answer = await call(copy, "logs");
    const lines = answer.lines as string[];
    assert.ok(lines.length > 0 && lines.length <= 50);
    assert.ok(lines.some((line) => line.includes(`Local    http://127.0.0.1:${port}/`)));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for escape sequences
    assert.ok(lines.every((line) => !/\u001b/.test(line)));
    assert.equal(typeof answer.total, "number");
    assert.equal((answer.files as { log: string }).log, ".opencode/dev-server.log");
    assert.ok(size(answer) <= MAX_ANSWER_BYTES);
  });

  test('logs with level "error" keeps error lines and their stack lines only', async () => {
    const answer = await call(copy, "logs", { level: "error" });
    const lines = answer.lines as string[];
    assert.ok(
      lines.some((line) => /\[ERROR\] MDXError:/.test(line)),
      JSON.stringify(answer),
    );
    assert.ok(
      lines.some((line) => /^\s+at /.test(line)),
      "stack lines kept",
    );
    assert.ok(!lines.some((line) => /\[200\]/.test(line)), "no request lines");
  });

  test("logs filter keeps the lines that contain the text", async () => {
    const answer = await call(copy, "logs", { filter: "no-such-page" });
    const lines = answer.lines as string[];
    assert.ok(lines.length >= 1);
    assert.ok(lines.every((line) => line.includes("no-such-page")));
  });

  test('logs since "last" returns only what was written after the previous call', async () => {
    await call(copy, "logs", { since: "last" });
    const empty = await call(copy, "logs", { since: "last" });
    assert.deepEqual(empty.lines, []);
    await call(copy, "http_get", { path: "/since-marker" });
    const answer = await waitFor("the new request's log line", async () => {
      const logs = await call(copy, "logs", { since: "last" });
      return (logs.lines as string[]).length > 0 ? logs : undefined;
    });
    assert.deepEqual(
      (answer.lines as string[]).map((line) => line.replace(/^\S+ /, "").replace(/ \d+ms$/, "")),
      ["[404] /since-marker"],
    );
  });

  test("logs stays under 2 KB when many lines are asked, and says where the rest is", async () => {
    for (let index = 0; index < 40; index++) await call(copy, "http_get", { path: `/filler-${index}-${"x".repeat(40)}` });
    const answer = await call(copy, "logs", { lines: 500 });
    assert.ok(size(answer) <= MAX_ANSWER_BYTES, `${size(answer)} bytes`);
    const shown = (answer.lines as string[]).length;
    assert.ok((answer.total as number) > shown);
    assert.ok((answer.more as { lines: number }).lines > 0, JSON.stringify(answer));
    const { report } = answer.files as { report: string };
    assert.ok(existsSync(join(copy.root, report)), "the full lines are in a report");
  });

  test("stop ends the whole group and frees the port", async () => {
    const answer = await call(copy, "stop");
    assert.equal(answer.stopped, true, JSON.stringify(answer));
    assert.equal(answer.pid, pid);
    assert.equal(typeof answer.ms, "number");
    assert.deepEqual(groupMembers(pid), []);
    assert.equal(listeningInodes(port).size, 0);
    assert.deepEqual(processesUnder(copy.root), []);
    assert.equal(existsSync(join(copy.stateDir, "dev-server.json")), false);
    assert.equal(existsSync(join(copy.stateDir, "dev-server.pid")), false);
    assert.equal(readDevPort(copy), undefined);
  });

  test("stop with nothing running says so", async () => {
    const answer = await call(copy, "stop");
    assert.equal(answer.stopped, false);
    assert.match(String(answer.reason), /no dev server/);
    const status = await call(copy, "status");
    assert.equal(status.running, false);
  });

  test("preview without a build fails with a hint", async () => {
    const answer = await call(copy, "start", { mode: "preview", port });
    assert.equal(answer.status, "failed");
    assert.match(String(answer.error), /dist/);
    assert.match(String(answer.hint), /blog_build_run/);
    assert.deepEqual(processesUnder(copy.root), []);
  });
});
