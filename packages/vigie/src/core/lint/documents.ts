// The Markdown and MDX files a lint looks at, read and parsed once for every linter.
import { readFileSync } from "node:fs";
import { type Collection, contentConfigPath, findCollections, pageFiles } from "../astro/collections.ts";
import { type ParsedMdx, parseMdx } from "../astro/mdx.ts";
import { type Project, relativePath } from "../project.ts";

export interface LintDocument {
  path: string;
  /** Relative to the project root. */
  file: string;
  collection?: Collection;
  parsed: ParsedMdx;
}

export interface Documents {
  collections: Collection[];
  configPath?: string;
  documents: LintDocument[];
}

/** Every collection entry and Markdown page of the project. */
export function loadDocuments(project: Project): Documents {
  const collections = findCollections(project);
  const seen = new Set<string>();
  const documents: LintDocument[] = [];
  const add = (path: string, collection?: Collection) => {
    if (seen.has(path)) return;
    seen.add(path);
    const source = readFileSync(path, "utf8");
    documents.push({ path, file: relativePath(project, path), collection, parsed: parseMdx(source, { markdown: !/\.mdx$/i.test(path) }) });
  };
  for (const collection of collections) for (const path of collection.files) add(path, collection);
  for (const path of pageFiles(project)) add(path);
  return { collections, configPath: contentConfigPath(project), documents };
}
