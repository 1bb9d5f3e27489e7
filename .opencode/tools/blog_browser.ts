// blog_browser_*: page checks in one warm Chromium. Definitions: vigie, src/tools/browser.ts.
import { openCodeTools } from "vigie/opencode";

export const { js_errors, perf, screenshot, a11y, crawl, visual_diff } = openCodeTools("browser");
