// The content lint: the content and Mermaid linters over one parse of the files.
import { relative, resolve } from "node:path";
import type { Site } from "../astro/site.ts";
import { lintContent } from "../lint/content/lint.ts";
import { loadDocuments } from "../lint/documents.ts";
import { lintMermaid } from "../lint/mermaid/lint.ts";
import { byPosition, type LintProblem } from "../lint/problem.ts";

export const LINTERS = ["content", "mermaid"] as const;
export type Linter = (typeof LINTERS)[number];

export interface LintOptions {
  linters?: readonly Linter[];
  /** Report only problems in these files or folders (relative to the root); translations are still looked up everywhere. */
  only?: string[];
  signal?: AbortSignal;
}

export interface LinterResult {
  success: boolean;
  problems: LintProblem[];
  notes: string[];
}

export interface LintResult {
  files: number;
  durationMs: number;
  content?: LinterResult;
  mermaid?: LinterResult & { diagrams: number };
}

export async function lint(site: Site, options: LintOptions = {}): Promise<LintResult> {
  const { project } = site;
  const started = performance.now();
  const linters = options.linters ?? LINTERS;
  const documents = loadDocuments(project);
  const wanted = options.only?.map((path) => resolve(project.root, path));
  const keep = (problems: LintProblem[]) =>
    problems
      .filter((problem) => {
        if (!wanted) return true;
        const path = resolve(project.root, problem.file);
        return wanted.some((prefix) => path === prefix || !relative(prefix, path).startsWith(".."));
      })
      .sort(byPosition);
  const result: LintResult = { files: documents.documents.length, durationMs: 0 };
  if (linters.includes("content")) {
    const content = await lintContent(site, documents, options.signal);
    const problems = keep(content.problems);
    result.content = { success: problems.length === 0, problems, notes: content.notes };
  }
  if (linters.includes("mermaid")) {
    const mermaid = await lintMermaid(project, documents);
    const problems = keep(mermaid.problems);
    result.mermaid = { success: mermaid.checked && problems.length === 0, problems, notes: mermaid.notes, diagrams: mermaid.diagrams };
  }
  result.durationMs = Math.round(performance.now() - started);
  return result;
}
