// Install-time step: make sure a Chromium is available for vigie's browser checks.
// It never fails the install: when nothing works it prints how to get a browser.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { findChromium, NO_CHROMIUM_HINT } from "../core/browser/session/executable.ts";

const PREFIX = "[vigie] ";

function say(message: string): void {
  process.stdout.write(`${PREFIX}${message}\n`);
}

function locate(): string | undefined {
  try {
    return findChromium()?.path;
  } catch (error) {
    say((error as Error).message);
    return undefined;
  }
}

function tryPlaywrightDownload(): boolean {
  say("trying Playwright's own Chromium download...");
  const result = spawnSync("npx", ["--no-install", "playwright-core", "install", "chromium"], {
    stdio: "inherit",
    timeout: 180_000,
  });
  return result.status === 0 && locate() !== undefined;
}

function isDebianLike(): boolean {
  if (existsSync("/etc/debian_version")) return true;
  try {
    return /^ID(_LIKE)?=.*(debian|ubuntu)/m.test(readFileSync("/etc/os-release", "utf8"));
  } catch {
    return false;
  }
}

function tryApt(): boolean {
  if (process.platform !== "linux" || process.getuid?.() !== 0 || !isDebianLike()) return false;
  say("installing Debian's chromium package with apt-get (running as root)...");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const update = spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env, timeout: 300_000 });
  if (update.status !== 0) return false;
  const install = spawnSync("apt-get", ["install", "-y", "-qq", "chromium"], { stdio: "inherit", env, timeout: 600_000 });
  return install.status === 0 && locate() !== undefined;
}

function main(): void {
  if (process.env.VIGIE_SKIP_BROWSER_INSTALL === "1") {
    say("VIGIE_SKIP_BROWSER_INSTALL=1: not looking for a browser.");
    return;
  }
  const found = locate();
  if (found) {
    say(`Chromium: ${found}`);
    return;
  }
  if (tryPlaywrightDownload() || tryApt()) {
    say(`Chromium: ${locate()}`);
    return;
  }
  say(NO_CHROMIUM_HINT);
  say("The install goes on; browser checks will answer with this hint until a browser is there.");
}

try {
  main();
} catch (error) {
  say(`could not check for a browser: ${(error as Error).message}`);
}
