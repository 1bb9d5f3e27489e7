// The five blog_dev definitions: their shape, and every bad input answered with an error
// that names the argument and the accepted form (OpenCode does not validate arguments).
import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { z } from "zod";
import { type Answer, MAX_ANSWER_BYTES } from "../../src/core/answer.ts";
import { projectAt } from "../../src/core/project.ts";
import { devTools } from "../../src/tools/dev.ts";
import { parseArgs, runTool } from "../../src/tools/run.ts";
import { assertAnswerMatches } from "../support/answers.ts";
import { FIXTURES_DIR } from "../support/blog.ts";

const root = join(FIXTURES_DIR, `dev-tools-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
const project = projectAt(root);

async function call(name: string, args: unknown): Promise<Answer> {
  const definition = devTools.find((tool) => tool.exportName === name);
  assert.ok(definition, name);
  const answer = await runTool(definition, args, { project });
  assertAnswerMatches(definition, answer);
  return answer;
}

function assertError(answer: Answer, argument: string | RegExp, why?: RegExp): void {
  assert.equal(typeof answer.error, "string", `an error answer: ${JSON.stringify(answer)}`);
  assert.equal(typeof answer.hint, "string");
  assert.ok((answer.hint as string).length > 10, "the hint says what to do");
  assert.match(answer.error as string, typeof argument === "string" ? new RegExp(`"${argument}"`) : argument);
  if (why) assert.match(`${answer.error} ${answer.hint}`, why);
  assert.doesNotMatch(JSON.stringify(answer), /\n\s+at /, "no stack trace");
  assert.ok(Buffer.byteLength(JSON.stringify(answer)) <= MAX_ANSWER_BYTES);
}

describe("blog_dev tool definitions", () => {
  before(() => {
    // A project with no server and no log: the tools must answer without one.
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "package.json"), '{"name":"dev-tools-fixture","private":true}\n');
  });

  after(() => rmSync(root, { recursive: true, force: true }));

  test("six tools of the dev group, exported as OpenCode maps them", () => {
    assert.deepEqual(
      devTools.map((tool) => tool.exportName),
      ["start", "stop", "status", "logs", "http_get", "changes"],
    );
    for (const tool of devTools) {
      assert.equal(tool.group, "dev");
      const schema = JSON.stringify({ description: tool.description, parameters: z.toJSONSchema(z.object(tool.args(z))) });
      assert.ok(schema.length < 700, `${tool.exportName}: ${schema.length} bytes as the model sees it`);
    }
  });

  test("an argument a tool does not know is ignored and named; a known one of the wrong type stays an error", async () => {
    // Gemini CLI adds wait_for_previous to every tool it declares, and the model fills it.
    const status = await call("status", { wait_for_previous: true });
    assert.equal(status.error, undefined, JSON.stringify(status));
    assert.deepEqual(status.ignoredArguments, ["wait_for_previous"]);
    const logs = await call("logs", { bogus: 1, other: "x" });
    assert.deepEqual(logs.ignoredArguments, ["bogus", "other"]);
    assertError(await call("logs", { wait_for_previous: true, lines: "many" }), "lines", /integer/);
    const definition = devTools.find((tool) => tool.exportName === "http_get");
    assert.ok(definition);
    const parsed = parseArgs(definition, { path: "/", url: "http://example.com/" });
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.args, { path: "/" });
    assert.deepEqual(parsed.ignored, ["url"]);
  });

  test("the CLI refuses an unknown argument by name", async () => {
    for (const name of ["start", "stop", "status", "logs"]) {
      const definition = devTools.find((tool) => tool.exportName === name);
      assert.ok(definition);
      assertError(
        await runTool(definition, { bogus: 1 }, { project, unknownArguments: "refuse" }),
        /unknown argument "bogus"/,
        /Accepted arguments/,
      );
    }
    const definition = devTools.find((tool) => tool.exportName === "http_get");
    assert.ok(definition);
    const refused = parseArgs(definition, { path: "/", url: "http://example.com/" }, "refuse");
    assert.ok(!refused.ok);
    assert.match(String(refused.answer.error), /unknown argument "url"/);
    assert.match(String(refused.answer.hint), /path, port, timeoutMs/);
  });

  test("arguments that are not an object are refused", async () => {
    assertError(await call("start", "4321"), /arguments must be an object/);
    assertError(await call("logs", [1, 2]), /arguments must be an object/);
  });

  test("start: port out of range or of the wrong type, unknown mode, timeout too short", async () => {
    for (const port of [0, -1, 65_536, 80.5, "4321", null])
      assertError(await call("start", { port }), "port", /1 to 65535|expected number/);
    assertError(await call("start", { mode: "production" }), "mode", /"dev", "preview"/);
    assertError(await call("start", { timeoutMs: 10 }), "timeoutMs", /1000/);
  });

  test("stop: a grace period that is negative or not a number", async () => {
    assertError(await call("stop", { graceMs: -1 }), "graceMs");
    assertError(await call("stop", { graceMs: "5s" }), "graceMs");
  });

  test("logs: lines out of range, unknown level or since, empty filter", async () => {
    for (const lines of [0, 501, 2.5, "10"]) assertError(await call("logs", { lines }), "lines", /1 to 500/);
    assertError(await call("logs", { level: "debug" }), "level", /"error", "warn"/);
    assertError(await call("logs", { since: "yesterday" }), "since", /"last"/);
    assertError(await call("logs", { filter: "" }), "filter");
    assertError(await call("logs", { filter: 42 }), "filter");
  });

  test("http_get: path missing or of the wrong type, port out of range, timeout out of range", async () => {
    assertError(await call("http_get", {}), "path");
    assertError(await call("http_get", { path: 42 }), "path");
    assertError(await call("http_get", { path: "/", port: 70_000 }), "port");
    assertError(await call("http_get", { path: "/", timeoutMs: 0 }), "timeoutMs");
  });

  test("http_get refuses what would leave the local server, saying why", async () => {
    const refused: [string, RegExp][] = [
      ["http://example.com/", /absolute URL/],
      ["https://127.0.0.1:4321/", /absolute URL/],
      ["//example.com/", /another host/],
      ["en/", /must start with "\/"/],
      ["/a\r\nHost: example.com", /CR, LF/],
      ["/a\nb", /CR, LF/],
      ["/../etc/passwd", /climb above the site root/],
      ["/en/../../etc/passwd", /climb above the site root/],
      ["/%2e%2e/%2e%2e/etc/passwd", /climb above the site root/],
      ["/a/%2F..%2F..%2Fetc", /encoded slashes/],
      ["/\\..\\etc", /backslash/],
    ];
    for (const [path, why] of refused) assertError(await call("http_get", { path }), "path", why);
  });

  test("http_get with a valid path but no server says how to start one", async () => {
    const answer = await call("http_get", { path: "/en/../fr/" });
    assertError(answer, /no dev server/, /blog_dev_start/);
  });

  test("status, stop and logs answer cleanly when nothing was ever started", async () => {
    const status = await call("status", {});
    assert.equal(status.running, false);
    assert.match(String(status.hint), /blog_dev_start/);
    const stop = await call("stop", {});
    assert.equal(stop.stopped, false);
    assert.equal(typeof stop.reason, "string");
    const logs = await call("logs", {});
    assert.deepEqual(logs.lines, []);
    assert.match(String(logs.hint), /blog_dev_start/);
  });
});
