// blog_browser_*: page checks in one warm Chromium. Definitions: packages/vigie/src/tools/browser.ts.
import { openCodeTools } from "../../packages/vigie/src/faces/opencode.ts";

export const { js_errors, perf, screenshot, a11y, crawl, visual_diff } = openCodeTools("browser");
