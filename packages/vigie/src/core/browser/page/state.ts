// A saved login: Playwright's storage-state file (cookies and local storage). Every page check
// and the crawl open their context with it when the project sets one (`storageState` in
// vigie.config.json); a flow may write it. Its content is never printed.
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { BrowserContext, BrowserContextOptions } from "playwright-core";

/** The context options that load the saved state: none while the file does not exist yet (a flow writes it). */
export function withState(file: string | undefined, options: BrowserContextOptions = {}): BrowserContextOptions {
  return file && existsSync(file) ? { ...options, storageState: file } : options;
}

/** Writes the context's cookies and storage to `file` (its folder made when missing). */
export async function saveState(context: BrowserContext, file: string): Promise<void> {
  mkdirSync(dirname(file), { recursive: true });
  await context.storageState({ path: file });
}
