// The commands' flags (node:util parseArgs): what a bad command line is told, and its exit code.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseFlags, takeFlag, UsageError } from "../../src/cli/flags.ts";

const spec = {
  json: { type: "string", value: "FILE" },
  strict: { type: "boolean" },
} as const;

const usage = (words: string[]) => {
  try {
    parseFlags(words, spec);
  } catch (error) {
    assert.ok(error instanceof UsageError, String(error));
    return error.message;
  }
  assert.fail(`no error for ${words.join(" ")}`);
};

describe("parseFlags", () => {
  test("values by type, --name value and --name=value", () => {
    assert.deepEqual(parseFlags(["--json", "a.json", "--strict"], spec).values, { json: "a.json", strict: true });
    assert.deepEqual(parseFlags(["--json=b.json"], spec).values, { json: "b.json" });
    assert.deepEqual(parseFlags(["r.json", "--strict"], spec, { positionals: true }).positionals, ["r.json"]);
  });

  test("each mistake says what was wrong and what is accepted", () => {
    const accepted = "Accepted: --json FILE, --strict";
    assert.equal(usage(["--nope"]), `unknown option "--nope". ${accepted}`);
    assert.equal(usage(["--json"]), `--json needs a value: --json FILE. ${accepted}`);
    assert.match(usage(["--json", "--strict"]), /^--json needs a value: --json FILE \(a value starting with a dash: --json=-x\)/);
    assert.equal(usage(["--strict=yes"]), `--strict takes no value. ${accepted}`);
    assert.equal(usage(["stray"]), `unexpected argument "stray". ${accepted}`);
    assert.match(usage(["-x"]), /^unknown option "-x"/);
  });

  test("the command's name comes first when given", () => {
    assert.throws(() => parseFlags(["--x"], spec, { command: "doctor" }), /^UsageError: doctor: unknown option "--x"/);
  });
});

describe("takeFlag", () => {
  test("takes --project DIR or --project=DIR out, leaving the other words", () => {
    assert.deepEqual(takeFlag(["--lines", "5", "--project", "/a", "x"], "project"), { value: "/a", rest: ["--lines", "5", "x"] });
    assert.deepEqual(takeFlag(["--project=/b", "--lines=-1"], "project"), { value: "/b", rest: ["--lines=-1"] });
    assert.deepEqual(takeFlag(["--lines", "5"], "project"), { rest: ["--lines", "5"] });
    assert.throws(() => takeFlag(["--project"], "project"), /--project needs a value/);
    assert.throws(() => takeFlag(["--project", "--lines"], "project"), /--project needs a value/);
  });
});

describe("the commands refuse a bad command line with exit 2 and what is accepted", () => {
  const main = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
  const empty = mkdtempSync(join(tmpdir(), "vigie-flags-"));
  after(() => rmSync(empty, { recursive: true, force: true }));
  const run = (args: string[]) => {
    const result = spawnSync(process.execPath, [main, ...args], { cwd: empty, encoding: "utf8", timeout: 60_000 });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };

  for (const [args, expected] of [
    [["validate", "--frobnicate"], /vigie validate: unknown option "--frobnicate"\. Accepted: --json FILE.*--shard I\/N/],
    [["validate", "--json"], /vigie validate: --json needs a value: --json FILE/],
    [["validate", "--shard", "3/2"], /--shard 3\/2: expected I\/N with 1 <= I <= N/],
    [["validate", "--build"], /vigie validate: --build goes with --changed \(a full run always builds\)/],
    [
      ["validate", "--perf-baseline", "/nowhere/at/all/base.json"],
      /--perf-baseline \/nowhere\/at\/all\/base\.json: the folder \/nowhere\/at\/all does not exist/,
    ],
    [["validate", "--project", "/nowhere/at/all"], /vigie validate: --project \/nowhere\/at\/all: no such directory/],
    [["doctor", "--project=/nowhere/at/all"], /--project \/nowhere\/at\/all: no such directory/],
    [["merge", "--strict=1"], /vigie merge: --strict takes no value/],
    [["merge"], /vigie merge: name at least one report/],
    [["doctor", "--x"], /doctor: unknown option "--x"\. Accepted: --json, --project DIR/],
    [["init", "--mcp"], /init: --mcp needs a value: --mcp claude\|cursor/],
    [["init", "--mcp", "vim"], /--mcp vim: accepted: claude, cursor/],
    [["list", "extra"], /list: unexpected argument "extra"\. Accepted: --json/],
    [["mcp", "--port", "1"], /mcp: unknown option "--port"\. Accepted: --project DIR/],
  ] as const) {
    test(args.join(" "), () => {
      const result = run([...args]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, expected);
      assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
    });
  }
});
