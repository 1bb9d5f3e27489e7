// Reading a tool call from the command line: names, flags, values, JSON.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { findToolByWords, parseToolArgs, UsageError } from "../../src/cli/args.ts";
import { toolName } from "../../src/tools/define.ts";
import { registry } from "../../src/tools/registry.ts";
import { argumentsSchema } from "../../src/tools/schema.ts";

const schemaOf = (name: string) => {
  const definition = registry.find((tool) => toolName(tool) === name);
  assert.ok(definition, name);
  return argumentsSchema(definition);
};

describe("findToolByWords", () => {
  const named = (words: string[]) => {
    const found = findToolByWords(registry, words);
    return found && { name: toolName(found.definition), used: found.used };
  };

  test("full name, short name, two words, dashes, a unique export name", () => {
    assert.deepEqual(named(["blog_dev_start", "--port", "1"]), { name: "blog_dev_start", used: 1 });
    assert.deepEqual(named(["dev_start"]), { name: "blog_dev_start", used: 1 });
    assert.deepEqual(named(["dev", "start", "--port", "1"]), { name: "blog_dev_start", used: 2 });
    assert.deepEqual(named(["dev", "http-get"]), { name: "blog_dev_http_get", used: 2 });
    assert.deepEqual(named(["browser-js-errors"]), { name: "blog_browser_js_errors", used: 1 });
    assert.deepEqual(named(["crawl"]), { name: "blog_browser_crawl", used: 1 });
  });

  test("nothing for unknown words", () => {
    assert.equal(named(["teleport"]), undefined);
    assert.equal(named(["dev", "--port"]), undefined);
    assert.equal(named([]), undefined);
  });
});

describe("parseToolArgs", () => {
  test("numbers and booleans where the schema says so; strings stay strings", () => {
    assert.deepEqual(parseToolArgs(schemaOf("blog_dev_start"), ["--port", "4400", "--mode", "preview"]), { port: 4400, mode: "preview" });
    assert.deepEqual(parseToolArgs(schemaOf("blog_dev_stop"), ["--graceMs", "-1"]), { graceMs: -1 });
    assert.deepEqual(parseToolArgs(schemaOf("blog_dev_http_get"), ["--path", "404"]), { path: "404" });
    const shot = schemaOf("blog_browser_screenshot");
    assert.deepEqual(parseToolArgs(shot, ["--fullPage"]), { fullPage: true });
    assert.deepEqual(parseToolArgs(shot, ["--fullPage=false"]), { fullPage: false });
    assert.deepEqual(parseToolArgs(shot, ["--fullPage", "false", "--path", "/en/"]), { fullPage: false, path: "/en/" });
    assert.deepEqual(parseToolArgs(shot, ["--fullPage", "--path", "/"]), { fullPage: true, path: "/" });
    assert.deepEqual(parseToolArgs(shot, ["--full-page"]), { fullPage: true }, "kebab-case names");
  });

  test("a value the schema does not accept is left as written, for the tool to name", () => {
    assert.deepEqual(parseToolArgs(schemaOf("blog_dev_start"), ["--port", "http"]), { port: "http" });
    assert.deepEqual(parseToolArgs(schemaOf("blog_dev_start"), ["--port"]), { port: true });
  });

  test("arrays from repeated flags or JSON", () => {
    const a11y = schemaOf("blog_browser_a11y");
    assert.deepEqual(parseToolArgs(a11y, ["--tags", "wcag2a", "--tags", "wcag2aa"]), { tags: ["wcag2a", "wcag2aa"] });
    assert.deepEqual(parseToolArgs(a11y, ["--tags", '["wcag2a","wcag2aa"]']), { tags: ["wcag2a", "wcag2aa"] });
    assert.deepEqual(parseToolArgs(a11y, ['{"tags":["x"]}', "--tags", "y"]), { tags: ["y"] }, "flags replace JSON");
  });

  test("one JSON object, with flags taking precedence", () => {
    const logs = schemaOf("blog_dev_logs");
    assert.deepEqual(parseToolArgs(logs, ['{"lines": 5, "level": "warn"}']), { lines: 5, level: "warn" });
    assert.deepEqual(parseToolArgs(logs, ["--level", "error", '{"lines": 5, "level": "warn"}']), { lines: 5, level: "error" });
  });

  test("unknown flags pass through (the tool refuses them by name)", () => {
    assert.deepEqual(parseToolArgs(schemaOf("blog_dev_stop"), ["--force", "--count", "3"]), { force: true, count: 3 });
  });

  test("malformed input is a usage error", () => {
    const logs = schemaOf("blog_dev_logs");
    for (const words of [["stray"], ["--"], ["-l", "5"], ["{nope"], ["[1]"], ['{"a":1}', '{"b":2}'], ["--=5"]]) {
      assert.throws(() => parseToolArgs(logs, words), UsageError, words.join(" "));
    }
  });
});
