// Two builds of one project asked at once: the second waits for the first, then runs its own command.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { readSite } from "../../../src/core/astro/site.ts";
import { runBuild } from "../../../src/core/build/build.ts";
import { projectAt } from "../../../src/core/project.ts";

const root = mkdtempSync(join(tmpdir(), "vigie-build-queue-"));
after(() => rmSync(root, { recursive: true, force: true }));
writeFileSync(join(root, "package.json"), "{}");
const site = readSite(projectAt(root));

test("a second runBuild while one runs gets its own result, after the first", async () => {
  const node = process.execPath;
  const first = runBuild(site, { command: [node, "-e", "setTimeout(() => console.log('first'), 300)"] });
  const second = runBuild(site, { command: [node, "-e", "console.log('second'); process.exit(3)"], timeoutMs: 10_000 });
  const [a, b] = await Promise.all([first, second]);
  assert.equal(a.success, true);
  assert.match(a.outputTail.join("\n"), /first/);
  assert.equal(b.success, false);
  assert.equal(b.exitCode, 3);
  assert.match(b.outputTail.join("\n"), /second/);
});
