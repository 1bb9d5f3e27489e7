// One finding of a linter: where, which rule, what, and what to do.

export type LintRule = "frontmatter" | "translation" | "mdx-syntax" | "mdx-expression" | "image" | "import" | "duplicate-slug" | "mermaid";

export interface LintProblem {
  /** Relative to the project root. */
  file: string;
  line: number;
  column: number;
  rule: LintRule;
  message: string;
  /** The fix, concretely (the escape to write, the file to add...). */
  hint: string;
}

export function byPosition(a: LintProblem, b: LintProblem): number {
  return a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column;
}
