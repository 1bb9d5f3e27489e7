// The Mermaid linter: each diagram parsed by mermaid's own parser; a fault is
// reported at its line in the MDX file (diagram start + the parser's line - 1).
import { clip } from "../../answer.ts";
import type { Project } from "../../project.ts";
import type { Documents } from "../documents.ts";
import type { LintProblem } from "../problem.ts";
import { type Diagram, diagramsOf } from "./diagrams.ts";
import { MermaidUnavailableError, parseDiagrams } from "./parser.ts";

export interface MermaidLintResult {
  diagrams: number;
  problems: LintProblem[];
  notes: string[];
  /** False when mermaid could not be loaded: nothing was checked. */
  checked: boolean;
}

/** "Parse error on line 3:\n...A --> B\n-----^\nExpecting 'X', got 'Y'" → its first and last lines. */
function summarize(message: string): string {
  const lines = message
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  const first = (lines[0] ?? "").replace(/:$/, "");
  const last = lines.length > 1 ? lines.at(-1) : undefined;
  let detail = last && !/^-+\^$/.test(last) ? last : undefined;
  // "Expecting 'AMP', 'COLON', ... (13 tokens), got 'TAGEND'": the first few say enough.
  const expecting = detail ? /^Expecting (.+), got (.+)$/.exec(detail) : null;
  if (expecting) {
    const tokens = (expecting[1] ?? "").split(", ");
    detail = `got ${expecting[2]}, expecting ${tokens.slice(0, 4).join(", ")}${tokens.length > 4 ? ` or ${tokens.length - 4} more` : ""}`;
  }
  const text = detail ? `${first}: ${detail}` : first;
  return clip(text, 220);
}

export async function lintMermaid(project: Project, documents: Documents): Promise<MermaidLintResult> {
  const diagrams: Diagram[] = documents.documents.flatMap(diagramsOf);
  if (diagrams.length === 0) return { diagrams: 0, problems: [], notes: [], checked: true };
  let verdicts: Awaited<ReturnType<typeof parseDiagrams>>;
  try {
    verdicts = await parseDiagrams(
      project.root,
      diagrams.map((diagram) => diagram.text),
    );
  } catch (error) {
    const reason = error instanceof MermaidUnavailableError ? error.message : `mermaid parser failed: ${(error as Error).message}`;
    return { diagrams: diagrams.length, problems: [], notes: [`${reason}; ${diagrams.length} diagrams not checked`], checked: false };
  }
  const problems: LintProblem[] = [];
  for (const [index, diagram] of diagrams.entries()) {
    const verdict = verdicts[index];
    if (!verdict || verdict.ok) continue;
    const lines = diagram.text.split("\n").length;
    const within = Math.min(Math.max(verdict.line ?? 1, 1), lines);
    problems.push({
      file: diagram.file,
      line: diagram.line + within - 1,
      column: 1,
      rule: "mermaid",
      message: `${diagram.from === "fence" ? "mermaid fence" : "Mermaid component"}: ${summarize(verdict.message)}`,
      hint: `Fix the ${diagram.text.split(/\s/)[0]} syntax on this line: the build passes, but the page shows an error instead of the diagram.`,
    });
  }
  return { diagrams: diagrams.length, problems, notes: [], checked: true };
}
