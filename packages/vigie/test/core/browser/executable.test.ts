// Where vigie looks for a Chromium: Playwright's cache in each platform's layout (the
// macOS ones included), newest build first; an environment variable naming nothing is an error.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { findChromium } from "../../../src/core/browser/session/executable.ts";

describe("finding a Chromium", () => {
  const dir = mkdtempSync(join(tmpdir(), "vigie-browsers-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  function fakeExecutable(...parts: string[]): string {
    const path = join(dir, ...parts);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, "");
    return path;
  }

  test("Playwright's cache, macOS layouts: Chrome for Testing and the headless shell, newest build first", () => {
    const env = { PLAYWRIGHT_BROWSERS_PATH: dir };
    const shell = fakeExecutable("chromium_headless_shell-1190", "chrome-headless-shell-mac-arm64", "chrome-headless-shell");
    assert.deepEqual(findChromium(env), { path: shell, source: "playwright-cache" });
    const testing = fakeExecutable(
      "chromium-1200",
      "chrome-mac-x64",
      "Google Chrome for Testing.app",
      "Contents",
      "MacOS",
      "Google Chrome for Testing",
    );
    assert.deepEqual(findChromium(env), { path: testing, source: "playwright-cache" });
    const arm = fakeExecutable(
      "chromium-1210",
      "chrome-mac-arm64",
      "Google Chrome for Testing.app",
      "Contents",
      "MacOS",
      "Google Chrome for Testing",
    );
    assert.deepEqual(findChromium(env), { path: arm, source: "playwright-cache" });
  });

  test("an environment variable comes first, and one naming a missing file is an error", () => {
    const named = fakeExecutable("custom", "chrome");
    assert.deepEqual(findChromium({ VIGIE_CHROMIUM: named, PLAYWRIGHT_BROWSERS_PATH: dir }), { path: named, source: "env" });
    assert.throws(() => findChromium({ CHROME_PATH: join(dir, "nothing") }), /CHROME_PATH names .* which does not exist/);
  });
});
