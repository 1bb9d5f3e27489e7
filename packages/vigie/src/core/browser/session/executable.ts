import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** Where a Chromium executable was found, and how. */
export interface ChromiumLocation {
  path: string;
  source: "env" | "playwright-cache" | "system";
}

/** Environment variables that may name a Chromium or Chrome executable, in order. */
export const CHROMIUM_ENV_VARS = ["VIGIE_CHROMIUM", "CHROME_PATH", "PUPPETEER_EXECUTABLE_PATH"] as const;

/** macOS applications, looked for in /Applications and then in the user's ~/Applications. */
const MAC_APPS = [
  ["Google Chrome.app", "Contents", "MacOS", "Google Chrome"],
  ["Chromium.app", "Contents", "MacOS", "Chromium"],
  ["Google Chrome for Testing.app", "Contents", "MacOS", "Google Chrome for Testing"],
];

function systemCandidates(): string[] {
  return [
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/opt/google/chrome/chrome",
    ...MAC_APPS.map((parts) => join("/Applications", ...parts)),
    ...MAC_APPS.map((parts) => join(homedir(), "Applications", ...parts)),
    // Homebrew's formula (the cask installs into /Applications).
    "/opt/homebrew/bin/chromium",
    "/usr/local/bin/chromium",
  ];
}

function playwrightCacheDir(env: NodeJS.ProcessEnv): string {
  if (env.PLAYWRIGHT_BROWSERS_PATH && env.PLAYWRIGHT_BROWSERS_PATH !== "0") return env.PLAYWRIGHT_BROWSERS_PATH;
  if (process.platform === "darwin") return join(homedir(), "Library", "Caches", "ms-playwright");
  return join(env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "ms-playwright");
}

/** Chromium builds downloaded by Playwright, newest first. */
function fromPlaywrightCache(env: NodeJS.ProcessEnv): string | undefined {
  const dir = playwrightCacheDir(env);
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return undefined;
  }
  const builds = entries
    .filter((name) => /^chromium(_headless_shell)?-\d+$/.test(name))
    .sort((a, b) => Number(b.split("-").pop()) - Number(a.split("-").pop()));
  const inner = [
    ["chrome-linux", "chrome"],
    ["chrome-linux64", "chrome"],
    ["chrome-headless-shell-linux64", "chrome-headless-shell"],
    ["chrome-mac", "Chromium.app", "Contents", "MacOS", "Chromium"],
    ["chrome-mac-arm64", "Google Chrome for Testing.app", "Contents", "MacOS", "Google Chrome for Testing"],
    ["chrome-mac-x64", "Google Chrome for Testing.app", "Contents", "MacOS", "Google Chrome for Testing"],
    ["chrome-headless-shell-mac-arm64", "chrome-headless-shell"],
    ["chrome-headless-shell-mac-x64", "chrome-headless-shell"],
  ];
  for (const build of builds) {
    for (const parts of inner) {
      const candidate = join(dir, build, ...parts);
      if (existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * Finds a Chromium: an environment variable naming it, Playwright's cache, then a
 * system Chromium or Chrome. Returns undefined when there is none.
 * An environment variable that names a missing file is an error, not a silent fallback.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): ChromiumLocation | undefined {
  for (const name of CHROMIUM_ENV_VARS) {
    const value = env[name];
    if (!value) continue;
    if (!existsSync(value)) {
      throw new Error(`${name} names ${value}, which does not exist. Point it at a Chromium or Chrome executable, or unset it.`);
    }
    return { path: value, source: "env" };
  }
  const cached = fromPlaywrightCache(env);
  if (cached) return { path: cached, source: "playwright-cache" };
  for (const candidate of systemCandidates()) {
    if (existsSync(candidate)) return { path: candidate, source: "system" };
  }
  return undefined;
}

/** What to tell a user who has no Chromium. */
export const NO_CHROMIUM_HINT =
  "No Chromium found. Install one: `apt-get install -y chromium` (Debian/Ubuntu, as root), " +
  "Google Chrome or `brew install --cask chromium` (macOS), " +
  "or `npx playwright install chromium` where downloads are allowed, " +
  "or set VIGIE_CHROMIUM to the path of a Chromium or Chrome executable.";
