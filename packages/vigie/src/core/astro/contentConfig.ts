// The collections src/content.config.* defines, read from its syntax tree: each
// `defineCollection` bound to a name, with its glob loader's base and patterns (Starlight's
// docsLoader is a glob over src/content/docs), named as `export const collections` names it.
import { join } from "node:path";
import type { AnyNode, Program } from "acorn";
import { ConfigScope, keyOf, nodesOf, parseConfigScript } from "./configScript.ts";

export interface CollectionDefinition {
  /** The collection's name, as `collections` exports it. */
  name: string;
  /** The loader's base, relative to the project root, when it says one. */
  base?: string;
  patterns: string[];
}

const DOCS_LOADER: Omit<CollectionDefinition, "name"> = { base: join("src", "content", "docs"), patterns: ["**/*.md", "**/*.mdx"] };

/** The name each `defineCollection(...)` call is bound to: `const blog = defineCollection(...)` or `{ blog: defineCollection(...) }`. */
function boundCalls(program: Program): Map<string, AnyNode> {
  const calls = new Map<string, AnyNode>();
  const isDefinition = (node: AnyNode | null | undefined) =>
    node?.type === "CallExpression" && node.callee.type === "Identifier" && node.callee.name === "defineCollection";
  for (const node of nodesOf(program)) {
    if (node.type === "VariableDeclarator" && node.id.type === "Identifier" && node.init && isDefinition(node.init))
      calls.set(node.id.name, node.init);
    else if (node.type === "Property" && !node.computed && isDefinition(node.value)) {
      const key = keyOf(node.key);
      if (key) calls.set(key, node.value);
    }
  }
  return calls;
}

/** The loader of a definition: a glob's base and patterns, Starlight's docs, or undefined for another loader. */
function loaderOf(scope: ConfigScope, call: AnyNode): Omit<CollectionDefinition, "name"> | undefined {
  if (call.type !== "CallExpression") return undefined;
  const loader = scope.property(scope.value(call.arguments[0]), "loader");
  if (loader?.type !== "CallExpression" || loader.callee.type !== "Identifier") return undefined;
  if (loader.callee.name === "docsLoader") return DOCS_LOADER;
  if (loader.callee.name !== "glob") return undefined;
  const options = scope.value(loader.arguments[0]);
  const pattern = scope.property(options, "pattern");
  const patterns =
    pattern?.type === "ArrayExpression"
      ? pattern.elements.flatMap((element) => scope.string(element ?? undefined) ?? [])
      : [scope.string(pattern)].filter((value): value is string => value !== undefined);
  const base = scope.string(scope.property(options, "base"));
  return { ...(base !== undefined ? { base } : {}), patterns };
}

/** Collection names by binding, from `export const collections = { blog, docs: docsCollection }`. */
function exportedNames(program: Program, scope: ConfigScope): Map<string, string> {
  const names = new Map<string, string>();
  for (const node of nodesOf(program)) {
    if (node.type !== "VariableDeclarator" || node.id.type !== "Identifier" || node.id.name !== "collections") continue;
    const object = scope.value(node.init);
    if (object?.type !== "ObjectExpression") continue;
    for (const property of object.properties) {
      const key = property.type === "Property" && !property.computed ? keyOf(property.key) : undefined;
      if (key && property.type === "Property" && property.value.type === "Identifier") names.set(property.value.name, key);
    }
  }
  return names;
}

/** The glob-loaded collections a content config defines; none when it does not parse. */
export function readContentConfig(file: string, source: string): CollectionDefinition[] {
  const program = parseConfigScript(file, source);
  if (!program) return [];
  const scope = new ConfigScope(program);
  const names = exportedNames(program, scope);
  const definitions: CollectionDefinition[] = [];
  for (const [binding, call] of boundCalls(program)) {
    const loader = loaderOf(scope, call);
    if (loader) definitions.push({ name: names.get(binding) ?? binding, ...loader });
  }
  return definitions;
}
