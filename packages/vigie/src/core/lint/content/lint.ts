// The content linter: frontmatter against the collection schema, FR/EN pairs, MDX
// expressions in prose, missing local files, duplicate slugs.

import { readFrontmatter } from "../../astro/frontmatter.ts";
import type { Site } from "../../astro/site.ts";
import type { Documents } from "../documents.ts";
import type { LintProblem } from "../problem.ts";
import { expressionProblems, readEsm } from "./expressions.ts";
import { missingFiles } from "./images.ts";
import { type Entry, entryPathOf, slugProblems, translationProblems } from "./pairs.ts";
import { validate } from "./schema.ts";
import { loadSchemas } from "./sync.ts";

export interface ContentLintResult {
  problems: LintProblem[];
  notes: string[];
}

function fieldName(path: (string | number)[]): string {
  return path.map((part, index) => (typeof part === "number" ? `[${part}]` : index === 0 ? part : `.${part}`)).join("") || "frontmatter";
}

export async function lintContent(site: Site, documents: Documents, signal?: AbortSignal): Promise<ContentLintResult> {
  const { project } = site;
  const schemas = await loadSchemas(project, documents.collections, documents.configPath, signal);
  const problems: LintProblem[] = [];
  const entries: Entry[] = [];
  for (const document of documents.documents) {
    const { parsed, file, collection } = document;
    const frontmatter = readFrontmatter(parsed.source);
    if (frontmatter.error) {
      problems.push({
        file,
        line: frontmatter.error.line,
        column: frontmatter.error.column,
        rule: "frontmatter",
        message: `frontmatter is not valid YAML: ${frontmatter.error.message}`,
        hint: "Fix the YAML: quote values that contain a colon followed by a space, or that start with a special character.",
      });
    } else if (collection) {
      const schema = schemas.byCollection.get(collection.name);
      if (schema) {
        for (const issue of validate(frontmatter.data ?? {}, schema)) {
          const field = fieldName(issue.path);
          problems.push({
            file,
            line: frontmatter.lineOf(issue.path),
            column: 1,
            rule: "frontmatter",
            message: `${field}: ${issue.message}`,
            hint: `Fix ${field} to match the ${collection.name} schema (src/content.config.ts).`,
          });
        }
      }
      entries.push({
        collection: collection.name,
        path: document.path,
        file,
        entryPath: entryPathOf(collection.base, document.path),
        data: frontmatter.data ?? {},
        lineOf: frontmatter.lineOf,
      });
    }
    const esm = readEsm(parsed.tree, parsed.source);
    problems.push(...expressionProblems(parsed, file, esm));
    problems.push(...missingFiles(project, document.path, file, parsed, esm, frontmatter.data));
  }
  problems.push(...translationProblems(entries, site.settings.locales));
  problems.push(...slugProblems(entries));
  return { problems, notes: schemas.notes };
}
