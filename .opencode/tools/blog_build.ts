// blog_build_*: build, lint, astro check, link check. Definitions: vigie, src/tools/build.ts.
import { openCodeTools } from "vigie/opencode";

export const { run, lint, check, links } = openCodeTools("build");
