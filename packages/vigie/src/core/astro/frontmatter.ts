// Frontmatter read with positions: each field's line in the source file.
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import { frontmatterOf } from "./mdx.ts";

export interface Frontmatter {
  /** The data, or undefined when there is no frontmatter. */
  data?: Record<string, unknown>;
  /** A YAML syntax error, with its line in the source file. */
  error?: { message: string; line: number; column: number };
  /** The line in the source file of a field (its value, or its key when the value is what is wrong); the `---` line when absent. */
  lineOf(path: readonly (string | number)[]): number;
}

export function readFrontmatter(source: string): Frontmatter {
  const block = frontmatterOf(source);
  if (!block) return { lineOf: () => 1 };
  const lineCounter = new LineCounter();
  const document = parseDocument(block.text, { lineCounter, prettyErrors: false });
  const toFileLine = (offset: number) => block.startLine + lineCounter.linePos(offset).line - 1;
  const lineOf = (path: readonly (string | number)[]): number => {
    let node: unknown = document.contents;
    let line = 1;
    for (const part of path) {
      if (isMap(node)) {
        const pair = node.items.find((item) => (isScalar(item.key) ? item.key.value : item.key) === part);
        if (!pair) return line;
        const key = pair.key as Node | undefined;
        if (key?.range) line = toFileLine(key.range[0]);
        node = pair.value;
      } else if (isSeq(node) && typeof part === "number") {
        node = node.items[part];
      } else return line;
      const range = (node as Node | undefined)?.range;
      if (range) line = toFileLine(range[0]);
    }
    return line;
  };
  const first = document.errors[0];
  if (first) {
    const position = lineCounter.linePos(first.pos[0]);
    return {
      error: { message: first.message.split("\n")[0] ?? "invalid YAML", line: block.startLine + position.line - 1, column: position.col },
      lineOf,
    };
  }
  const data = document.toJS() as unknown;
  return { data: data && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>) : {}, lineOf };
}
