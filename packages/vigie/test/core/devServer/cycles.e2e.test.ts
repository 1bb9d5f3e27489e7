// Twenty start/stop cycles leave no process of any group and no listening port. They run
// in preview mode (a quicker start: the blog is static, so its serve plan is vigie's static
// server, sh → node in the server's group) on a small build.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { listeningInodes } from "../../../src/core/devServer/ports.ts";
import { groupMembers } from "../../../src/core/process/inspect.ts";
import { type BlogCopy, copyBlog } from "../../support/blog.ts";
import { call, freePort, killEverythingIn, processesUnder } from "./helpers.ts";

const CYCLES = 20;

describe("start/stop cycles", () => {
  let copy: BlogCopy;

  before(() => {
    copy = copyBlog("dev-cycles");
    mkdirSync(join(copy.root, "dist"), { recursive: true });
    writeFileSync(
      join(copy.root, "dist/index.html"),
      "<!doctype html><html><head><title>Built fixture</title></head><body><h1>Built</h1></body></html>\n",
    );
  });

  after(() => {
    killEverythingIn(copy);
    copy.remove();
  });

  test("preview serves the last build", async () => {
    const answer = await call(copy, "start", { mode: "preview", port: await freePort() });
    assert.equal(answer.status, "started", JSON.stringify(answer));
    assert.equal(answer.mode, "preview");
    const page = await call(copy, "http_get", { path: "/" });
    assert.equal(page.title, "Built fixture");
    assert.equal((await call(copy, "status")).healthy, true);
    assert.equal((await call(copy, "stop")).stopped, true);
  });

  test(`${CYCLES} start/stop cycles leave no process of the group and no listening port`, async () => {
    const groups: number[] = [];
    const ports: number[] = [];
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const started = await call(copy, "start", { mode: "preview", port: await freePort() });
      assert.equal(started.status, "started", `cycle ${cycle}: ${JSON.stringify(started)}`);
      groups.push(started.pid as number);
      ports.push(started.port as number);
      const stopped = await call(copy, "stop", { graceMs: 5000 });
      assert.equal(stopped.stopped, true, `cycle ${cycle}: ${JSON.stringify(stopped)}`);
      assert.deepEqual(groupMembers(started.pid as number), [], `cycle ${cycle}: the group is gone`);
      assert.equal(listeningInodes(started.port as number).size, 0, `cycle ${cycle}: the port is free`);
      // Astro's own lock of the server is gone too, or the next start would be refused.
      assert.equal(existsSync(join(copy.root, ".astro/preview.json")), false, `cycle ${cycle}: Astro's lock is removed`);
    }
    assert.equal(new Set(groups).size, CYCLES);
    assert.deepEqual(
      groups.filter((pgid) => groupMembers(pgid).length > 0),
      [],
    );
    assert.deepEqual(
      ports.filter((port) => listeningInodes(port).size > 0),
      [],
    );
    assert.deepEqual(processesUnder(copy.root), []);
  });
});
