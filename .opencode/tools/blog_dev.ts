// blog_dev_*: the dev server's lifecycle, and what an edit changed. Definitions: vigie, src/tools/dev.ts.
import { openCodeTools } from "vigie/opencode";

export const { start, stop, status, logs, http_get, changes } = openCodeTools("dev");
