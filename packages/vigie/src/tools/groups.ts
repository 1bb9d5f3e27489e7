// The tools of one group, imported on demand: a command-line call loads its own group's file
// and the core that file needs, not the whole registry (`vigie dev status` loads no browser,
// build or lint code). The registry (registry.ts) stays the one list; this only reaches its parts.
import type { ToolDefinition, ToolGroup } from "./define.ts";

const GROUPS: readonly ToolGroup[] = ["dev", "build", "browser"];

/** The definitions of `group`, the same objects the registry lists. */
export async function toolsOfGroup(group: ToolGroup): Promise<readonly ToolDefinition[]> {
  switch (group) {
    case "dev":
      return (await import("./dev.ts")).devTools;
    case "build":
      return (await import("./build.ts")).buildTools;
    case "browser":
      return (await import("./browser.ts")).browserTools;
  }
}

/**
 * The group a command's first word names, if any: `dev` (as in `dev status`), `dev_status`,
 * `dev-status`, `blog_dev_status` or under another prefix `docs_dev_status`. Only a guess to
 * try first: a caller that finds no tool there looks in the whole registry.
 */
export function groupNamedBy(word: string | undefined): ToolGroup | undefined {
  const [first, second] = (word ?? "").replaceAll("-", "_").split("_");
  return GROUPS.find((group) => group === first) ?? GROUPS.find((group) => group === second);
}
