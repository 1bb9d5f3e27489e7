// How start fails, and how it finds the port the server really took: a port held by a
// foreign server, a server that exits during start, one not ready in time, and a server
// listening elsewhere than asked.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { readSite } from "../../../src/core/astro/site.ts";
import { readDevPort, startDevServer, stopDevServer } from "../../../src/core/devServer/index.ts";
import { listeningInodes } from "../../../src/core/devServer/ports.ts";
import { type BlogCopy, copyBlog } from "../../support/blog.ts";
import { call, freePort, killEverythingIn, processesUnder } from "./helpers.ts";

/** A small HTTP server in its own Node process, as another program on the machine. */
async function foreignServer(port: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["-e", `require("node:http").createServer((q, s) => s.end("foreign")).listen(${port}, "127.0.0.1", () => console.log("up"))`],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await once(child.stdout as NodeJS.ReadableStream, "data");
  return child;
}

function stateFiles(copy: BlogCopy): string[] {
  return ["dev-server.json", "dev-server.pid", "dev-server.port"].filter((name) => existsSync(join(copy.stateDir, name)));
}

describe("start's failures and the real port", () => {
  let copy: BlogCopy;
  let broken: BlogCopy;
  const started: ChildProcess[] = [];

  before(() => {
    copy = copyBlog("dev-start");
    broken = copyBlog("dev-start-broken");
    writeFileSync(
      join(broken.root, "astro.config.mjs"),
      'import { defineConfig } from "astro/config";\nexport default defineConfig({ integrations: [notDefined()] });\n',
    );
  });

  after(() => {
    for (const child of started) child.kill("SIGKILL");
    for (const blog of [copy, broken]) {
      killEverythingIn(blog);
      blog.remove();
    }
  });

  test("a port held by a foreign server: failed, naming the holder and how to choose another port", async () => {
    const port = await freePort();
    const foreign = await foreignServer(port);
    started.push(foreign);
    const answer = await call(copy, "start", { port });
    assert.equal(answer.status, "failed", JSON.stringify(answer));
    assert.match(String(answer.error), new RegExp(`port ${port} is already held by pid ${foreign.pid}`));
    assert.deepEqual((answer.holder as { pid: number }).pid, foreign.pid);
    assert.match(String(answer.hint), /"port"/);
    assert.deepEqual(processesUnder(copy.root), []);
    assert.deepEqual(stateFiles(copy), []);
    // The foreign server was left alone, and is never reported as ours.
    assert.equal(await (await fetch(`http://127.0.0.1:${port}/`)).text(), "foreign");
    assert.equal((await call(copy, "status")).running, false);
    assert.equal(readDevPort(copy), undefined);
    foreign.kill();
  });

  test("a server that exits during start: failed with its exit code and log tail, nothing left", async () => {
    const answer = await call(broken, "start", { port: await freePort() });
    assert.equal(answer.status, "failed", JSON.stringify(answer));
    assert.equal(answer.exitCode, 1);
    assert.match(String(answer.error), /exited during start with code 1/);
    assert.ok(
      (answer.logTail as string[]).some((line) => /notDefined/.test(line)),
      JSON.stringify(answer.logTail),
    );
    assert.equal(typeof answer.hint, "string");
    assert.deepEqual(processesUnder(broken.root), []);
    assert.deepEqual(stateFiles(broken), []);
  });

  test("a server not ready in time: failed, and stopped", async () => {
    const port = await freePort();
    const answer = await call(copy, "start", { port, timeoutMs: 1000 });
    assert.equal(answer.status, "failed", JSON.stringify(answer));
    assert.match(String(answer.error), /not ready within 1 s/);
    assert.match(String(answer.hint), /timeoutMs/);
    assert.deepEqual(processesUnder(copy.root), []);
    assert.deepEqual(stateFiles(copy), []);
    assert.equal(listeningInodes(port).size, 0);
  });

  test("the port the server really listens on is answered and written, not the one asked", async () => {
    const asked = await freePort();
    const real = await freePort();
    const answer = await startDevServer(readSite(copy), {
      port: asked,
      command: ["npm", "run", "dev", "--", "--port", String(real), "--host", "127.0.0.1"],
    });
    try {
      assert.equal(answer.kind, "started", JSON.stringify(answer));
      assert.equal(answer.port, real);
      assert.equal(answer.movedFrom, asked);
      assert.equal(readFileSync(join(copy.stateDir, "dev-server.port"), "utf8").trim(), String(real));
      assert.equal(readDevPort(copy), real);
      const page = await call(copy, "http_get", { path: "/en/", timeoutMs: 60_000 });
      assert.equal(page.status, 200, JSON.stringify(page));
    } finally {
      const stopped = await stopDevServer(copy);
      assert.equal(stopped.kind, "stopped");
    }
    assert.equal(listeningInodes(real).size, 0);
    assert.deepEqual(processesUnder(copy.root), []);
  });
});
