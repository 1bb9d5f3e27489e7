// The static server of a build: a file that cannot be read (a real read error, EIO) gets a
// 500 for that request alone, and the server goes on serving the others.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type StaticServer, serveStatic } from "../../src/core/staticServer.ts";

/**
 * A GET that resolves with the status and body, or with the socket error when the answer is
 * cut; gives up after 10 s (a guard against a hung answer, not a speed check).
 */
function get(url: string): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = request(url, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      response.on("error", (error) => resolve({ error: error.message }));
    });
    req.on("error", (error) => resolve({ error: error.message }));
    req.setTimeout(10_000, () => req.destroy(new Error("no answer in 10 s")));
    req.end();
  });
}

describe("static server", () => {
  let dir: string;
  let server: StaticServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "vigie-static-"));
    writeFileSync(join(dir, "index.html"), "<h1>home</h1>");
    writeFileSync(join(dir, "404.html"), "<h1>not here</h1>");
    mkdirSync(join(dir, "en"));
    writeFileSync(join(dir, "en", "index.html"), "<h1>en</h1>");
    // A regular file whose first read fails with EIO, for any user (root reads files without
    // permissions, so a chmod would not do): the memory of a process at address 0.
    if (existsSync("/proc/self/mem")) symlinkSync("/proc/self/mem", join(dir, "unreadable.html"));
    server = await serveStatic(dir);
  });

  after(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("serves files, directory indexes and the 404 page", async () => {
    assert.deepEqual(await get(`${server.url}/`), { status: 200, body: "<h1>home</h1>" });
    assert.deepEqual(await get(`${server.url}/en/`), { status: 200, body: "<h1>en</h1>" });
    assert.deepEqual(await get(`${server.url}/nope/`), { status: 404, body: "<h1>not here</h1>" });
  });

  test("a read error answers 500 for that file and the server keeps serving", {
    skip: !existsSync("/proc/self/mem") && "no /proc",
  }, async () => {
    const broken = await get(`${server.url}/unreadable.html`);
    assert.ok("status" in broken, `an answer, not a cut connection: ${JSON.stringify(broken)}`);
    assert.equal(broken.status, 500);
    assert.match(broken.body, /could not be read/i);
    for (let round = 0; round < 3; round += 1) {
      assert.deepEqual(await get(`${server.url}/unreadable.html`), broken, "the same answer each time");
      assert.deepEqual(await get(`${server.url}/en/`), { status: 200, body: "<h1>en</h1>" });
    }
  });
});
