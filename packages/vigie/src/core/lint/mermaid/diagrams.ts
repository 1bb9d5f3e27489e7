// Every Mermaid diagram of a page: ```mermaid fences and the literal props of a
// <Mermaid code={`...`} /> component, each with the line its text starts on in the
// file. The text is trimmed as the page's script trims it before rendering.
import { type Node as AcornNode, parseExpressionAt } from "acorn";
import { type MdxNode, pointOf, walk } from "../../astro/mdx.ts";
import type { LintDocument } from "../documents.ts";

export interface Diagram {
  file: string;
  /** Line in the file of the diagram's first line. */
  line: number;
  text: string;
  from: "fence" | "component";
}

const PROPS = ["code", "chart", "diagram", "definition", "source", "value"];

/** The diagram text and the line of its first line, once leading blank lines are trimmed. */
function trimmed(raw: string, firstLine: number): { text: string; line: number } {
  const leading = /^\s*/.exec(raw)?.[0] ?? "";
  return { text: raw.trim(), line: firstLine + (leading.match(/\n/g)?.length ?? 0) };
}

/** A literal string or template (without `${}`) as written in a JSX prop: its value and where that value starts. */
function literal(expression: string): { value: string; start: number } | undefined {
  let node: AcornNode & Record<string, unknown>;
  try {
    node = parseExpressionAt(expression, 0, { ecmaVersion: "latest" }) as AcornNode & Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (node.type === "Literal" && typeof node.value === "string") return { value: node.value, start: node.start + 1 };
  if (node.type === "TemplateLiteral" && (node.expressions as unknown[]).length === 0) {
    const quasi = (node.quasis as { value: { cooked: string | null }; start: number }[])[0];
    if (quasi?.value.cooked != null) return { value: quasi.value.cooked, start: quasi.start };
  }
  return undefined;
}

function componentDiagram(document: LintDocument, node: MdxNode): Diagram | undefined {
  const source = document.parsed.source;
  const start = node.position?.start.offset ?? 0;
  const end = node.position?.end.offset ?? source.length;
  for (const attribute of node.attributes ?? []) {
    if (!attribute.name || !PROPS.includes(attribute.name)) continue;
    const at = source.slice(start, end).search(new RegExp(`\\b${attribute.name}\\s*=`));
    if (at < 0) continue;
    const valueStart = start + at + source.slice(start + at).indexOf("=") + 1;
    let value: string | undefined;
    let offset = valueStart;
    if (typeof attribute.value === "string") {
      value = attribute.value;
      offset = source.indexOf(source.slice(valueStart).trimStart()[0] ?? '"', valueStart) + 1;
    } else if (attribute.value?.type === "mdxJsxAttributeValueExpression") {
      const found = literal(attribute.value.value);
      if (!found) continue;
      value = found.value;
      offset = Math.max(valueStart, source.indexOf(attribute.value.value, valueStart)) + found.start;
    }
    if (value === undefined) continue;
    const { text, line } = trimmed(value, pointOf(source, offset).line);
    return { file: document.file, line, text, from: "component" };
  }
  return undefined;
}

export function diagramsOf(document: LintDocument): Diagram[] {
  const diagrams: Diagram[] = [];
  const tree = document.parsed.tree;
  if (!tree) return diagrams;
  walk(tree, (node) => {
    if (node.type === "code" && node.lang?.toLowerCase() === "mermaid" && node.position) {
      const { text, line } = trimmed(node.value ?? "", node.position.start.line + 1);
      if (text) diagrams.push({ file: document.file, line, text, from: "fence" });
      return false;
    }
    if ((node.type === "mdxJsxFlowElement" || node.type === "mdxJsxTextElement") && /mermaid/i.test(node.name ?? "")) {
      const diagram = componentDiagram(document, node);
      if (diagram?.text) diagrams.push(diagram);
    }
    return true;
  });
  return diagrams;
}
