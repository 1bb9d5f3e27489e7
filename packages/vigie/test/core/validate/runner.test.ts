// The validate runner: steps in their order, each after the steps it waits for, side by
// side up to the width given; a step that throws or skips is recorded, never lost.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { setImmediate as tick } from "node:timers/promises";
import { VigieError } from "../../../src/core/answer.ts";
import type { BrowserSession } from "../../../src/core/browser/session/session.ts";
import type { Project } from "../../../src/core/project.ts";
import { runSteps, STEPS, validate } from "../../../src/core/validate/runner.ts";
import type { ProgressEvent, Step, ToolId, ValidateContext } from "../../../src/core/validate/steps/context.ts";

const REPO = join(import.meta.dirname, "..", "..", "..", "..", "..");

function context(events: ProgressEvent[] = []): ValidateContext {
  return {
    project: { root: "/nowhere" } as Project,
    config: {},
    site: {
      base: "/",
      trailingSlash: "ignore",
      outDir: "/nowhere/dist",
      staticDir: "/nowhere/dist",
      serve: "static",
      critical: ["/"],
      rendering: { output: "static", serve: "static", serveNote: "a static build", staticDir: "/nowhere/dist" },
    },
    options: { session: {} as BrowserSession, onProgress: (event: ProgressEvent) => events.push(event) },
    tool: (id: ToolId) => `blog_${id}`,
    critical: ["/"],
    pages: [],
  } as unknown as ValidateContext;
}

/** Steps that count how many of them run at once and log when each starts and ends. */
function counted(names: { name: string; after?: string[]; ticks?: number }[]) {
  const log: string[] = [];
  let running = 0;
  let most = 0;
  const steps: Step[] = names.map(({ name, after = [], ticks = 2 }) => ({
    name,
    tool: "build_lint",
    after,
    skip: () => undefined,
    async run() {
      running += 1;
      most = Math.max(most, running);
      log.push(`start ${name}`);
      for (let index = 0; index < ticks; index += 1) await tick();
      log.push(`end ${name}`);
      running -= 1;
      return { status: "ok", summary: name };
    },
  }));
  return { steps, log, most: () => most };
}

describe("validate runner", () => {
  test("independent steps run side by side up to the width; a step starts after those it waits for", async () => {
    const { steps, log, most } = counted([{ name: "a" }, { name: "b" }, { name: "c" }, { name: "d", after: ["a"] }]);
    const results = await runSteps(context(), steps, 2);
    assert.deepEqual(
      results.map((result) => result.record.summary),
      ["a", "b", "c", "d"],
    );
    assert.equal(most(), 2);
    assert.ok(log.indexOf("start d") > log.indexOf("end a"), log.join(", "));
    assert.ok(log.indexOf("start c") > Math.min(log.indexOf("end a"), log.indexOf("end b")), log.join(", "));
  });

  test("width 1 runs one step at a time, in the steps' order", async () => {
    const { steps, log, most } = counted([{ name: "a" }, { name: "b" }, { name: "c", after: ["a"] }]);
    await runSteps(context(), steps, 1);
    assert.equal(most(), 1);
    assert.deepEqual(log, ["start a", "end a", "start b", "end b", "start c", "end c"]);
  });

  test("a step that throws is an error record and a finding with the hint; the steps after it still run", async () => {
    const events: ProgressEvent[] = [];
    const failing: Step = {
      name: "build",
      tool: "build_run",
      after: [],
      skip: () => undefined,
      run: () => Promise.reject(new VigieError("astro is not installed\nmore detail", "Run npm install.")),
    };
    const skipped: Step = {
      name: "links",
      tool: "build_links",
      after: ["build"],
      skip: () => "no build to check",
      run: () => assert.fail("skipped"),
    };
    const [build, links] = await runSteps(context(events), [failing, skipped]);
    assert.equal(build?.record.status, "error");
    assert.equal(build?.record.summary, "astro is not installed");
    assert.deepEqual(build?.error, {
      severity: "fail",
      tool: "blog_build_run",
      message: "build could not run: astro is not installed",
      fix: "Run npm install.",
    });
    assert.deepEqual(links?.record, { name: "links", tool: "blog_build_links", ms: 0, status: "skipped", summary: "no build to check" });
    assert.deepEqual(
      events.map((event) => (event.type === "step" ? `step ${event.name}` : event.type === "step-done" ? `done ${event.step.name}` : "")),
      ["step build", "done build", "done links"],
    );
  });

  test("a step also waits for the steps it names once its own are done", async () => {
    const { steps, log } = counted([{ name: "a", ticks: 6 }, { name: "b" }, { name: "c", after: ["b"] }]);
    const asked: string[] = [];
    const c = steps[2] as Step;
    c.alsoAfter = () => {
      asked.push(log.join(", "));
      return ["a"];
    };
    await runSteps(context(), steps, 3);
    assert.equal(asked.length, 1);
    assert.equal(asked[0], "start a, start b, end b");
    assert.ok(log.indexOf("start c") > log.indexOf("end a"), log.join(", "));
  });

  test("a step may wait only for a step listed before it", async () => {
    const { steps } = counted([{ name: "a", after: ["b"] }, { name: "b" }]);
    await assert.rejects(runSteps(context(), steps), /step "a" waits for "b", which is not a step before it/);
  });

  test("the validator's steps wait only for steps before them, and have one name each", () => {
    const seen = new Set<string>();
    for (const step of STEPS) {
      for (const name of step.after) assert.ok(seen.has(name), `${step.name} waits for ${name}`);
      assert.ok(!seen.has(step.name), step.name);
      seen.add(step.name);
    }
    assert.deepEqual([...seen], ["dev server", "lint", "build", "links", "astro check", "critical routes", "crawl", "flows", "perf"]);
  });

  test("no project, or a --base-url off this machine: a harness error before any step, verdict FAIL", async () => {
    const empty = mkdtempSync(join(tmpdir(), "vigie-runner-"));
    try {
      const none = await validate({ root: empty } as Project, { session: {} as BrowserSession });
      assert.equal(none.verdict, "FAIL");
      assert.match(none.harnessError?.message ?? "", /no project at .*: there is no package\.json/);
      assert.deepEqual(none.steps, []);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    const remote = await validate({ root: REPO } as Project, { session: {} as BrowserSession, baseUrl: "http://example.com:4321" });
    assert.equal(remote.verdict, "FAIL");
    assert.match(remote.harnessError?.message ?? "", /is not a server on this machine/);
    assert.match(remote.harnessError?.hint ?? "", /127\.0\.0\.1/);
    assert.deepEqual(remote.steps, []);
  });
});
