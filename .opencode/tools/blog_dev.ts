// blog_dev_*: the dev server's lifecycle. Definitions: packages/vigie/src/tools/dev.ts.
import { openCodeTools } from "../../packages/vigie/src/faces/opencode.ts";

export const { start, stop, status, logs, http_get } = openCodeTools("dev");
