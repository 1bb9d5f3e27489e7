// a11y: axe-core in the page, violations grouped by rule.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { BrowserSession } from "./session.ts";
import { checkPage } from "./watch.ts";

let axeSource: string | undefined;
function axe(): string {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  return axeSource;
}

export type Impact = "minor" | "moderate" | "serious" | "critical";
const SEVERITY: Record<Impact, number> = { critical: 0, serious: 1, moderate: 2, minor: 3 };

export interface Violation {
  id: string;
  impact: Impact;
  help: string;
  count: number;
  target: string;
  helpUrl: string;
}

export interface A11yResult {
  url: string;
  violations: Violation[];
  passes: number;
  incomplete: number;
}

export async function auditA11y(session: BrowserSession, url: string, options: { tags?: string[] } = {}): Promise<A11yResult> {
  return session.withPage(async (page) => {
    await checkPage(page, url);
    await page.addScriptTag({ content: axe() });
    const raw = await page.evaluate(async (tags) => {
      type AxeResult = { id: string; impact: string | null; help: string; helpUrl: string; nodes: { target: unknown[] }[] };
      const runner = (
        window as unknown as {
          axe: {
            run: (context: Document, options: object) => Promise<{ violations: AxeResult[]; passes: unknown[]; incomplete: unknown[] }>;
          };
        }
      ).axe;
      const result = await runner.run(document, tags?.length ? { runOnly: { type: "tag", values: tags } } : {});
      return {
        violations: result.violations.map((v) => ({
          id: v.id,
          impact: (v.impact ?? "minor") as string,
          help: v.help,
          helpUrl: v.helpUrl,
          count: v.nodes.length,
          target: (v.nodes[0]?.target ?? []).map((part) => (Array.isArray(part) ? part.join(" >>> ") : String(part))).join(" "),
        })),
        passes: result.passes.length,
        incomplete: result.incomplete.length,
      };
    }, options.tags);
    const violations = (raw.violations as Violation[]).sort((a, b) => SEVERITY[a.impact] - SEVERITY[b.impact] || b.count - a.count);
    return { url, violations, passes: raw.passes, incomplete: raw.incomplete };
  });
}
