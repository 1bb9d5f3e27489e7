// A port taken between vigie's bind test and the server's own listen (the seconds `astro
// preview` takes to load): without an asked port, start tries the next free one and says why.
// The server here is a plain Node HTTP server run as the dev command; its first start finds
// its port taken by another process that listens on it meanwhile, as a concurrent server would.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { readSite } from "../../../src/core/astro/site.ts";
import { startDevServer, stopDevServer } from "../../../src/core/devServer/index.ts";
import { projectAt } from "../../../src/core/project.ts";
import { FIXTURES_DIR } from "../../support/blog.ts";

const SERVER = `
const { spawn } = require("node:child_process");
const { existsSync, writeFileSync } = require("node:fs");
const http = require("node:http");
const port = Number(process.argv[2]);
if (!existsSync("first-start")) {
  writeFileSync("first-start", "");
  // Another process takes the port while this server loads, then this server's listen fails.
  const other = spawn(process.execPath, ["-e", "require('node:http').createServer((q, s) => s.end('other')).listen(" + port + ", '127.0.0.1')"], { detached: true, stdio: "ignore" });
  writeFileSync("other.pid", String(other.pid));
  setTimeout(() => {
    console.error("listen EADDRINUSE: address already in use 127.0.0.1:" + port);
    process.exit(1);
  }, 800);
} else {
  http.createServer((q, s) => s.end("ours")).listen(port, "127.0.0.1", () => console.log("ready on http://127.0.0.1:" + port + "/"));
}
`;

describe("a port taken while the server starts", () => {
  const root = join(FIXTURES_DIR, `dev-port-race-${process.pid}`);
  const project = projectAt(root);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "port-race", private: true }));
  writeFileSync(join(root, "server.cjs"), SERVER);

  after(async () => {
    await stopDevServer(project).catch(() => undefined);
    try {
      process.kill(-Number(readFileSync(join(root, "other.pid"), "utf8")), "SIGKILL");
    } catch {
      // never started, or gone
    }
    rmSync(root, { recursive: true, force: true });
  });

  test("the next free port is used, and the answer says why", async () => {
    const result = await startDevServer(readSite(project), { command: [process.execPath, "server.cjs", "{port}"], timeoutMs: 30_000 });
    assert.equal(result.kind, "started", JSON.stringify(result));
    if (result.kind !== "started") return;
    const taken = Number(readFileSync(join(root, "other.pid"), "utf8")) > 0;
    assert.ok(taken);
    assert.match(result.portNote ?? "", /^port \d+ was taken by another process while the server started; \d+ was used$/);
    const [, lost, used] = (result.portNote ?? "").match(/^port (\d+) .* (\d+) was used$/) ?? [];
    assert.notEqual(lost, used);
    assert.equal(result.port, Number(used));
    assert.equal(await (await fetch(`http://127.0.0.1:${used}/`)).text(), "ours");
    assert.equal(await (await fetch(`http://127.0.0.1:${lost}/`)).text(), "other");
  });
});
