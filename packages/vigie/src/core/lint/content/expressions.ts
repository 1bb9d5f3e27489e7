// Braces and tags in MDX prose. satteri finds the syntax errors the build would stop
// on (`{foo bar}`, a lone `{`, an unclosed `<tag>`); acorn then reads each expression
// that did parse, to find those that fail at render (`{foo}`: foo is not defined) or
// silently change the page (`{}`, `{1,2}` shows "2"). Component props and import
// lines are other node types, so `code={`...`}` or `src={img}` are not prose.
import { type Node as AcornNode, parse, parseExpressionAt } from "acorn";
import { clip } from "../../answer.ts";
import { type MdxNode, type ParsedMdx, pointOf, walk } from "../../astro/mdx.ts";
import type { LintProblem } from "../problem.ts";

export interface ImportInfo {
  source: string;
  /** Offset of the specifier in the file. */
  offset: number;
}

export interface EsmInfo {
  /** Names the file's imports and exports declare. */
  declared: Set<string>;
  imports: ImportInfo[];
}

/**
 * What an MDX page can use without declaring it: every global of the JavaScript runtime that
 * renders it at build time (the language's own, Error, Reflect, WeakMap..., and the runtime's,
 * structuredClone, URL, TextEncoder...), read from this process's globalThis rather than
 * listed by hand; plus what MDX and Astro put in the compiled module. A browser's globals are
 * not there at render, even when this process has a DOM shim.
 */
const NOT_AT_RENDER = new Set(["window", "document", "self", "location", "localStorage", "sessionStorage", "alert", "confirm", "prompt"]);
const FROM_MDX_AND_ASTRO = ["frontmatter", "props", "Astro", "url", "file", "getHeadings", "Content", "MDXContent"];
const KNOWN = new Set([...Object.getOwnPropertyNames(globalThis), ...FROM_MDX_AND_ASTRO].filter((name) => !NOT_AT_RENDER.has(name)));

const ACORN = { ecmaVersion: "latest", sourceType: "module" } as const;

type Estree = AcornNode & Record<string, unknown>;

function bindingNames(pattern: unknown, into: Set<string>, references: Set<string>): void {
  const node = pattern as Estree | null;
  if (!node) return;
  switch (node.type) {
    case "Identifier":
      into.add(node.name as string);
      break;
    case "ObjectPattern":
      for (const property of node.properties as Estree[])
        bindingNames(property.type === "RestElement" ? property.argument : property.value, into, references);
      break;
    case "ArrayPattern":
      for (const element of node.elements as Estree[]) bindingNames(element, into, references);
      break;
    case "AssignmentPattern":
      bindThenRead(node.left, node.right, into, references);
      break;
    case "RestElement":
      bindingNames(node.argument, into, references);
      break;
  }
}

/** A pattern that binds names, then what is read in their scope (a default value, an initialiser, a catch body). */
function bindThenRead(pattern: unknown, value: unknown, bound: Set<string>, references: Set<string>): void {
  bindingNames(pattern, bound, references);
  collect(value, references, bound);
}

/** Identifiers an expression reads, and the names it binds itself (function parameters, declarations). */
function collect(value: unknown, references: Set<string>, bound: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collect(item, references, bound);
    return;
  }
  const node = value as Estree | null;
  if (!node || typeof node !== "object" || typeof node.type !== "string") return;
  switch (node.type) {
    case "Identifier":
      references.add(node.name as string);
      return;
    case "MemberExpression":
      collect(node.object, references, bound);
      if (node.computed) collect(node.property, references, bound);
      return;
    case "Property":
    case "PropertyDefinition":
    case "MethodDefinition":
      if (node.computed) collect(node.key, references, bound);
      collect(node.value, references, bound);
      return;
    case "ArrowFunctionExpression":
    case "FunctionExpression":
    case "FunctionDeclaration":
      if (node.id) bindingNames(node.id, bound, references);
      for (const param of node.params as Estree[]) bindingNames(param, bound, references);
      collect(node.body, references, bound);
      return;
    case "VariableDeclarator":
      bindThenRead(node.id, node.init, bound, references);
      return;
    case "CatchClause":
      bindThenRead(node.param, node.body, bound, references);
      return;
    case "LabeledStatement":
      collect(node.body, references, bound);
      return;
    case "BreakStatement":
    case "ContinueStatement":
    case "MetaProperty":
      return;
  }
  for (const [key, child] of Object.entries(node)) {
    if (key !== "type" && key !== "start" && key !== "end" && key !== "loc" && key !== "range") collect(child, references, bound);
  }
}

/** Names an expression reads that nothing declares. */
function undeclared(expression: string, declared: Set<string>): string[] | undefined {
  let node: AcornNode;
  try {
    node = parseExpressionAt(expression, 0, ACORN);
  } catch {
    // satteri accepted it (JSX inside an expression, for instance): not ours to judge.
    return undefined;
  }
  const references = new Set<string>();
  const bound = new Set<string>();
  collect(node, references, bound);
  return [...references].filter((name) => !bound.has(name) && !declared.has(name) && !KNOWN.has(name));
}

export function readEsm(tree: MdxNode | undefined, source: string): EsmInfo {
  const declared = new Set<string>();
  const imports: ImportInfo[] = [];
  if (!tree) return { declared, imports };
  walk(tree, (node) => {
    if (node.type !== "mdxjsEsm" || !node.value) return true;
    const start = node.position?.start.offset ?? 0;
    const text = node.value;
    const addImport = (specifier: string) => imports.push({ source: specifier, offset: Math.max(start, source.indexOf(specifier, start)) });
    try {
      const program = parse(text, ACORN) as unknown as { body: Estree[] };
      for (const statement of program.body) {
        if (statement.type === "ImportDeclaration") {
          for (const specifier of statement.specifiers as Estree[]) declared.add((specifier.local as Estree).name as string);
          addImport((statement.source as Estree).value as string);
        } else if (
          statement.type === "ExportNamedDeclaration" ||
          statement.type === "VariableDeclaration" ||
          statement.type === "FunctionDeclaration"
        ) {
          const declaration = statement.type === "ExportNamedDeclaration" ? (statement.declaration as Estree | null) : statement;
          if (declaration) collect(declaration, new Set(), declared);
          if (statement.source) addImport((statement.source as Estree).value as string);
        }
      }
    } catch {
      // TypeScript-only syntax and the like: the plain import forms are enough.
      for (const match of text.matchAll(
        /import\s+(?:type\s+)?([\w$]+)?\s*,?\s*(?:\{([^}]*)\}|\*\s*as\s+([\w$]+))?\s*from\s*["']([^"']+)["']/g,
      )) {
        if (match[1]) declared.add(match[1]);
        if (match[3]) declared.add(match[3]);
        for (const part of (match[2] ?? "").split(",")) {
          const name = part
            .trim()
            .split(/\s+as\s+/)
            .pop();
          if (name) declared.add(name);
        }
        addImport(match[4] as string);
      }
    }
    return false;
  });
  return { declared, imports };
}

/** On one line, clipped: for quoting code and messages in a finding. */
function short(text: string, max = 40): string {
  return clip(text.replace(/\s+/g, " ").trim(), max);
}

function escapes(inner: string): string {
  const text = short(inner);
  return `Write \\{${text}\\}, or \`{${text}}\` as inline code, or {'{'}${text}{'}'}.`;
}

/** What a braced expression in prose does to the page, or undefined when it is fine. */
function judge(inner: string, declared: Set<string>): string | undefined {
  const code = inner.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "").trim();
  if (code === "") return inner.trim() === "" ? "renders nothing: the braces and their content vanish from the page" : undefined;
  let node: Estree;
  try {
    node = parseExpressionAt(code, 0, ACORN) as Estree;
  } catch {
    return undefined;
  }
  if (node.type === "SequenceExpression") {
    const last = (node.expressions as Estree[]).at(-1);
    const shown = last?.type === "Literal" ? String(last.value) : "its last term";
    return `renders "${shown}": the comma operator keeps only the last value, with no error`;
  }
  if (node.type === "Literal" && (node.value === null || typeof node.value === "boolean")) return "renders nothing";
  if (node.type === "ObjectExpression") return 'renders "[object Object]"';
  const missing = undeclared(code, declared);
  if (missing && missing.length > 0) return `fails at render: ${missing.join(", ")} is not defined (the build stops with a ReferenceError)`;
  return undefined;
}

function syntaxProblem(file: string, source: string, error: ParsedMdx["errors"][number]): LintProblem {
  const at = { file, line: error.line, column: error.column, rule: "mdx-syntax" as const };
  const char = source[error.offset];
  if (char === "{") {
    if (/closing brace/i.test(error.message)) {
      return {
        ...at,
        message: "A lone { opens an expression that never closes: the build fails",
        hint: "Escape it: \\{, or put it in inline code, or write {'{'}.",
      };
    }
    const close = source.indexOf("}", error.offset);
    const blank = source.indexOf("\n\n", error.offset);
    const inner =
      close > 0 && (blank < 0 || close < blank) ? source.slice(error.offset + 1, close) : source.slice(error.offset + 1, error.offset + 30);
    return {
      ...at,
      message: `{${short(inner)}} is not a JavaScript expression: the build fails (${short(error.message, 90)})`,
      hint: escapes(inner),
    };
  }
  if (char === "<") {
    const tag = /^<\/?([\w.:-]*)/.exec(source.slice(error.offset))?.[1] ?? "";
    const closing = tag ? `</${tag}>` : "the closing tag";
    return {
      ...at,
      message: `${short(error.message, 120)}: the build fails`,
      hint: tag
        ? `Close it with ${closing}, or escape the bracket: \\<${tag}, or \`<${tag}>\` as inline code.`
        : "Escape the bracket: \\< or &lt;, or use inline code.",
    };
  }
  if (/\besm\b/i.test(error.message)) {
    return {
      ...at,
      message: `import/export line is not valid JavaScript: the build fails (${short(error.message.replace(/^Could not parse esm with \w+: /, ""), 100)})`,
      hint: "Keep import and export lines pure JavaScript; prose goes in its own paragraph, after a blank line.",
    };
  }
  return {
    ...at,
    message: `${short(error.message, 140)}: the build fails`,
    hint: "Fix the MDX syntax here; a literal { or < in prose is escaped with a backslash.",
  };
}

/** The position of `needle` inside a node's source range, else the node's start. */
function positionIn(source: string, node: MdxNode, needle: string): { line: number; column: number } {
  const start = node.position?.start.offset ?? 0;
  const end = node.position?.end.offset ?? source.length;
  const at = source.indexOf(needle, start);
  return pointOf(source, at >= 0 && at < end ? at : start);
}

export function expressionProblems(parsed: ParsedMdx, file: string, esm: EsmInfo): LintProblem[] {
  const { source } = parsed;
  const problems = parsed.errors.map((error) => syntaxProblem(file, source, error));
  if (!parsed.tree) return problems;
  walk(parsed.tree, (node) => {
    if (node.type === "mdxTextExpression" || node.type === "mdxFlowExpression") {
      const inner = node.value ?? "";
      const verdict = judge(inner, esm.declared);
      if (verdict && node.position) {
        const { line, column } = node.position.start;
        problems.push({
          file,
          line,
          column,
          rule: "mdx-expression",
          message: `{${short(inner)}} in prose ${verdict}`,
          hint: escapes(inner),
        });
      }
      return false;
    }
    if ((node.type === "mdxJsxFlowElement" || node.type === "mdxJsxTextElement") && node.attributes) {
      for (const attribute of node.attributes) {
        const expression =
          attribute.type === "mdxJsxExpressionAttribute"
            ? (attribute.value as string | undefined)
            : typeof attribute.value === "object" && attribute.value?.type === "mdxJsxAttributeValueExpression"
              ? attribute.value.value
              : undefined;
        if (!expression) continue;
        const missing = undeclared(attribute.type === "mdxJsxExpressionAttribute" ? `({${expression}})` : expression, esm.declared);
        if (!missing || missing.length === 0) continue;
        const label =
          attribute.type === "mdxJsxExpressionAttribute" ? `{${short(expression)}}` : `${attribute.name}={${short(expression)}}`;
        const { line, column } = positionIn(
          source,
          node,
          attribute.type === "mdxJsxExpressionAttribute" ? `{${expression}` : `${attribute.name}={`,
        );
        problems.push({
          file,
          line,
          column,
          rule: "mdx-expression",
          message: `<${node.name ?? ""} ${label}>: ${missing.join(", ")} is not defined, the page fails at render`,
          hint: `Import ${missing[0]} at the top of the file, or fix the name.`,
        });
      }
    }
    return true;
  });
  return problems;
}
