import type { Browser } from "playwright-core";
import { findChromium, NO_CHROMIUM_HINT } from "./executable.ts";

/**
 * Flags for a headless Chromium on a machine without outside network: without the
 * networking ones Chromium keeps trying to reach Google's services.
 */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
  "--disable-default-apps",
  "--disable-extensions",
  "--mute-audio",
];

export class NoChromiumError extends Error {
  readonly hint = NO_CHROMIUM_HINT;
  constructor(message = NO_CHROMIUM_HINT) {
    super(message);
    this.name = "NoChromiumError";
  }
}

/** Launches a headless Chromium found by `findChromium`. */
export async function launchChromium(options: { timeoutMs?: number; args?: string[] } = {}): Promise<Browser> {
  let location: ReturnType<typeof findChromium>;
  try {
    location = findChromium();
  } catch (error) {
    throw new NoChromiumError((error as Error).message);
  }
  if (!location) throw new NoChromiumError();
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: location.path,
    headless: true,
    args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
    timeout: options.timeoutMs ?? 30_000,
    // The session kills its browser on these signals and lets them end the process;
    // Playwright's own handlers would keep a process with other work alive.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
}
