// The Agent Skill that `vigie init` writes (SKILL.md): the command-line loop for an agent
// with a shell, which then needs neither the MCP server nor the OpenCode tools, and so no
// tool list in its context. Claude Code and OpenCode read .claude/skills/; Codex, Gemini CLI
// and OpenCode read .agents/skills/.
import { join } from "node:path";
import type { SiteSummary } from "./site.ts";

export const SKILL_FILES = [join(".claude", "skills", "vigie", "SKILL.md"), join(".agents", "skills", "vigie", "SKILL.md")];

export function skillFile(prefix: string, site: SiteSummary): string {
  const home = site.criticalRoutes[0] ?? site.base;
  const other = site.criticalRoutes[1] ?? `${site.base}`;
  return `---
name: vigie
description: >-
  Check this Astro site the way a reader gets it, from the shell: content lint, production
  build, links, every page loaded in a real headless Chromium (runtime errors, failed
  requests, accessibility, performance). Use it after changing content, components, styles,
  scripts or config, and before saying that a change works or committing it.
---

# Checking the site with vigie

Every command runs in the project's root and prints one compact JSON object (or, for
\`validate\`, a report); it exits 0 when all is well, 1 on a finding or a tool error, 2 on
bad usage. Nothing to install: vigie is in node_modules.

## The loop after an edit

1. \`npx vigie validate --changed\` checks only what the changes since the last commit can
   have affected (lint of the changed content, build, the pages whose output changed, in
   the browser; while \`npx vigie dev start\` runs, no build: the pages the change reaches,
   on the dev server, in seconds). It ends with a verdict:
   - **FAIL**: something is broken for a reader (build error, 4xx/5xx page, page error,
     broken link, serious accessibility violation). Fix it, then run it again.
   - **WARN**: nothing broken, a budget or a minor rule exceeded. Say so; fix it if it is yours.
   - **PASS**: done.
   Each finding names the page or the file (\`file:line\`), the tool that saw it
   (\`${prefix}_browser_crawl\`...), the evidence and what to do (\`fix\`). \`npx vigie validate\`
   without \`--changed\` checks everything (slower: use it before a commit).
2. To look at one page: \`npx vigie dev start\`, then
   \`npx vigie js_errors --path ${home}\` (uncaught errors with their source file and
   line, console errors, failed requests), \`npx vigie a11y --path ${other}\`,
   \`npx vigie http_get --path ${home}\`; \`npx vigie dev stop\` when done. After an edit,
   \`npx vigie dev changes\` names the pages it reached and the faults new or resolved on
   them (its first call takes the baseline). A fault that shows only when
   a reader acts (a click, a key): \`--actions '[{"click": "button Next"}, {"press": "Enter"}]'\`
   runs those steps after the load; each error says the step after which it came (\`afterStep\`).
3. A content question without a build: \`npx vigie build lint\`.

## Reading an answer

- \`error\` and \`hint\`: the call failed; the hint says what to do next (often which
  command to run first).
- A long list is cut to its first items, and \`more\` beside it says how many were left
  out (\`"more": {"failing": 12}\`); the whole of it is in \`files.report\`: read that file
  rather than running the command again. Every file an answer points at (report, log,
  screenshot, diff image) is in \`files\`.
- \`npx vigie list\` lists every check; \`npx vigie <check> --help\` gives its arguments.

Start the dev server only if \`npx vigie dev status\` says none runs, and stop only one you
started: a server that was running before is the user's.
`;
}
