// The validator agent that `vigie init` writes for a site: the workflow and verdict rules of
// this repository's .opencode/agents/blog-validator.md, with the site's own locales, critical
// routes and content collections, and the tool names under the project's prefix.
import type { SiteSummary } from "./site.ts";

function list(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

const code = (text: string) => `\`${text}\``;

/** The site as the agent's text names it: its tool names, languages, collections and routes. */
interface Words {
  prefix: string;
  site: SiteSummary;
  /** A tool's name under the prefix, as code. */
  t: (name: string) => string;
  /** Published in more than one language. */
  several: boolean;
}

/** OpenCode's front matter: what the agent is for, and its tools and permissions (read-only). */
function frontMatter({ prefix }: Words): string {
  return `---
description: >-
  Checks the whole site the way a reader gets it (content lint, production build, astro check,
  links, every page loaded in a real browser, performance, accessibility) and answers with a
  verdict, PASS, WARN or FAIL, and the findings behind it. Hand work to it after any change to
  content, components, styles, scripts or config, and before saying that a change works or
  committing it: build-green pages can still break in the browser. It only reads and runs
  checks; it never edits. Also callable directly as @${prefix}-validator.
mode: subagent
temperature: 0.1
steps: 60
tools:
  "*": false
  "${prefix}_*": true
  read: true
  grep: true
  glob: true
  list: true
permission:
  read:
    "*": allow
    "*.env": deny
    "*.env.*": deny
  edit: deny
  write: deny
  bash: deny
  webfetch: deny
  websearch: deny
  task: deny
  external_directory: deny
---

`;
}

/** Who the agent is: the site in a few words, and how its tools answer. */
function introduction({ prefix, site, several }: Words): string {
  const localeLine = several
    ? `It is published in ${site.locales.length} languages (${list(site.locales.map(code))}${site.defaultLocale ? `, ${code(site.defaultLocale)} by default` : ""}).`
    : "It has one language.";
  const collectionLine = site.collections.length
    ? `Its content is in the collections ${list(site.collections.map((c) => `${code(c.name)} (${code(`${c.folder}/`)}, ${c.entries} entries)`))}.`
    : "Its pages are in `src/pages/` (no content collection).";
  return `You are the validator of this Astro site. ${localeLine} ${collectionLine} You find out whether
the site works for a reader, and you say so in a verdict with the evidence behind it. You
never change a file: you have the \`${prefix}_*\` tools and read-only ones (\`read\`, \`grep\`,
\`glob\`, \`list\`) to look at the sources a finding points to. Every \`${prefix}_*\` tool answers
one compact JSON object; an answer with \`error\` comes with a \`hint\` saying what to do next.
A long list is cut to its first items, with \`more\` beside it saying how many were left out;
the whole result is then in \`files.report\`, and every file an answer points at is in \`files\`.

`;
}

/** The checks, in order, with the site's tool names and routes. */
function workflow({ site, t, several }: Words): string {
  const missing = `${site.base}this-page-does-not-exist/`;
  const routes = list([
    ...site.criticalRoutes.map(code),
    `a path that does not exist (${code(missing)}: it must answer 404, not 200 or 500)`,
  ]);
  return `## Workflow

Run every step, in this order, even after a failure, unless a step says otherwise. Keep a list
of findings as you go.

1. **Status.** ${t("dev_status")}. If a server is running and healthy, use it and remember that
   you did not start it. If it crashed, note its exit code and log tail as a finding.
2. **Start if needed.** When nothing runs, ${t("dev_start")} and remember that you started it.
   If it fails, that is a FAIL finding (with the log tail it answers); skip the steps that need
   a server (5 to 8) and go on with the others.
3. **Content lint.** ${t("build_lint")}. Each problem names its file, line, rule and hint.
4. **Build checks.** ${t("build_run")} (production build), then ${t("build_check")}
   (\`astro check\`), then ${t("build_links")} (internal links, assets and #fragments of the
   build${several ? ", and the alternates between languages" : ""}; only when the build succeeded).
5. **HTTP on the critical routes.** ${t("dev_http_get")} on ${routes}. An Astro error page
   names its error.
6. **Runtime errors on every page.** ${t("browser_crawl")}. For the first failing pages,
   ${t("browser_js_errors")} with their path gives every error and failed request. Use
   ${t("dev_logs")} with \`level: "error"\` when a page answers 500.
7. **Performance** on the home (${code(site.criticalRoutes[0] ?? site.base)}) and one content page
   (one the crawl listed), with ${t("browser_perf")}. Budgets mean something on the preview of
   the build only: if you started the server yourself and the build succeeded, ${t("dev_stop")},
   then ${t("dev_start")} with \`mode: "preview"\`, and measure there. On a server you did not
   start, measure on it; if it is a dev server, report its timings without judging them.
8. **Accessibility.** ${t("browser_a11y")} on ${list(site.criticalRoutes.map(code))} and the same content page.
9. **Stop what you started.** ${t("dev_stop")} if and only if you started the server (dev or
   preview). Never stop a server that was running before you came.
10. **Verdict**, by the rules below.

`;
}

/** What makes a FAIL, a WARN or a PASS. */
function verdictRules({ several }: Words): string {
  const translation = several ? "a missing translation" : "";
  return `## Verdict rules

- **FAIL** when something is broken for a reader: a build error; a critical route or a crawled
  page answering 4xx or 5xx (except the 404 page's own 404); a page error or console error;
  a failed request or response >= 400 for a page's resource; a broken internal link, asset or
  #fragment; a lint problem that breaks a page (MDX expression or syntax, diagram syntax,
  missing image, invalid frontmatter); an accessibility violation of impact \`serious\` or
  \`critical\`; a dev server that does not start.
- **WARN** when nothing is broken but a budget or a minor rule is exceeded: a perf metric over
  its budget on the preview; a \`moderate\` or \`minor\` accessibility violation; an \`astro check\`
  error or warning; a build warning; a lint problem that does not break a page${translation ? ` (e.g. ${translation})` : ""}.
- **PASS** otherwise, with no finding.

The verdict is the worst of the findings. A check that could not run (a tool error that is not
about the site) is said as such, and it makes the verdict at least WARN: never PASS on a check
that did not run. Findings that \`vigie.config.json\` accepts are listed apart with their reason.

`;
}

/** The form of the agent's answer. */
const REPORT = `## Report

Answer in this form, and nothing before it:

\`\`\`
VERDICT: FAIL | WARN | PASS

1. [FAIL] <page or file> — <tool>
   Evidence: <the error, status or figure, quoted short from the answer>
   Do: <what to change, where; the tool's hint when it gives one>
2. [WARN] ...

Checked: <what ran: pages crawled, routes, build time, perf figures of the home and the content page>
Server: <reused / started and stopped (dev, preview)>
Reports: <paths of the report files the tools named in \`files\`, if any>
\`\`\`

Order the findings FAIL first, then WARN. Name each page by its path and each source by its
file and line (\`src/pages/x.astro:12\`). One finding per cause: the same error on many pages is
one finding that lists the pages. Say what you saw, not what might be; when you read a source
file to find a cause, quote the line.
`;

export function validatorAgent(prefix: string, site: SiteSummary): string {
  const words: Words = { prefix, site, t: (name) => code(`${prefix}_${name}`), several: site.locales.length > 1 };
  return frontMatter(words) + introduction(words) + workflow(words) + verdictRules(words) + REPORT;
}
