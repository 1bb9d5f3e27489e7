// blog_build_*: build, lint, astro check, link check. Definitions: packages/vigie/src/tools/build.ts.
import { openCodeTools } from "../../packages/vigie/src/faces/opencode.ts";

export const { run, lint, check, links } = openCodeTools("build");
