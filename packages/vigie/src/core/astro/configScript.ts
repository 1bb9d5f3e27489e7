// Config files are code (astro.config.*, src/content.config.*): read as acorn syntax trees,
// never run (running them would start the project's integrations). TypeScript goes
// through Node's own type stripper first.
import module from "node:module";
import { type AnyNode, type Program, parse } from "acorn";

const PARSE_OPTIONS = { ecmaVersion: "latest", sourceType: "module", allowHashBang: true, allowAwaitOutsideFunction: true } as const;

/** TypeScript made JavaScript by Node's own type stripper (enums and namespaces transformed), when this Node has it. */
function withoutTypes(source: string): string | undefined {
  const strip = (module as { stripTypeScriptTypes?: (code: string, options: { mode: "transform" }) => string }).stripTypeScriptTypes;
  if (!strip) return undefined;
  // The API still says it is experimental, once per process: that notice is not for the user's terminal.
  const emitWarning = process.emitWarning;
  process.emitWarning = () => {};
  try {
    return strip(source, { mode: "transform" });
  } catch {
    return undefined;
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** The file's syntax tree, or undefined when it does not parse (Astro could not load it either). */
export function parseConfigScript(file: string, source: string): Program | undefined {
  try {
    return parse(source, PARSE_OPTIONS);
  } catch {
    const javascript = /\.[mc]?ts$/.test(file) ? withoutTypes(source) : undefined;
    if (javascript === undefined) return undefined;
    try {
      return parse(javascript, PARSE_OPTIONS);
    } catch {
      return undefined;
    }
  }
}

/** Every node under `node`, depth first. */
export function* nodesOf(node: unknown): Generator<AnyNode> {
  if (!node || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const item of node) yield* nodesOf(item);
    return;
  }
  if (typeof (node as AnyNode).type === "string") yield node as AnyNode;
  for (const value of Object.values(node)) if (value && typeof value === "object") yield* nodesOf(value);
}

/** What the config's top level names: constants and the modules it imports or requires. */
export class ConfigScope {
  readonly #constants = new Map<string, AnyNode>();
  /** Local name → module, for `import x from "m"`, `import { x } from "m"`, `const x = require("m")`. */
  readonly imports = new Map<string, string>();

  constructor(program: Program) {
    for (const statement of program.body) {
      if (statement.type === "ImportDeclaration")
        for (const specifier of statement.specifiers) this.imports.set(specifier.local.name, String(statement.source.value));
      const declaration = statement.type === "ExportNamedDeclaration" ? statement.declaration : statement;
      if (declaration?.type !== "VariableDeclaration") continue;
      for (const declarator of declaration.declarations) {
        if (declarator.id.type !== "Identifier" || !declarator.init) continue;
        const required = requiredModule(declarator.init);
        if (required) this.imports.set(declarator.id.name, required);
        else this.#constants.set(declarator.id.name, declarator.init);
      }
    }
  }

  /** The expression a name stands for, followed through top-level constants. */
  value(node: AnyNode | null | undefined, depth = 0): AnyNode | undefined {
    if (node?.type === "Identifier" && depth < 8) return this.value(this.#constants.get(node.name), depth + 1);
    return node ?? undefined;
  }

  /** `name: value` of an object literal (the last one, as JavaScript keeps), resolved. */
  property(object: AnyNode | undefined, name: string): AnyNode | undefined {
    if (object?.type !== "ObjectExpression") return undefined;
    let found: AnyNode | undefined;
    for (const property of object.properties)
      if (property.type === "Property" && !property.computed && keyOf(property.key) === name) found = property.value;
    return this.value(found);
  }

  string(node: AnyNode | undefined): string | undefined {
    const value = this.value(node);
    if (value?.type === "Literal" && typeof value.value === "string") return value.value;
    if (value?.type === "TemplateLiteral" && value.expressions.length === 0) return value.quasis[0]?.value.cooked ?? undefined;
    return undefined;
  }
}

export function keyOf(key: AnyNode): string | undefined {
  if (key.type === "Identifier") return key.name;
  if (key.type === "Literal" && (typeof key.value === "string" || typeof key.value === "number")) return String(key.value);
  return undefined;
}

function requiredModule(node: AnyNode): string | undefined {
  if (node.type !== "CallExpression" || node.callee.type !== "Identifier" || node.callee.name !== "require") return undefined;
  const [argument] = node.arguments;
  return argument?.type === "Literal" && typeof argument.value === "string" ? argument.value : undefined;
}
