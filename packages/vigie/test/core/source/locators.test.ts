// The source locators on small projects written for each test: diagrams, images, stack
// frames back to file:line, or a reason when the source cannot be known.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { locateDiagram } from "../../../src/core/source/diagrams.ts";
import { SourceFiles } from "../../../src/core/source/files.ts";
import { locateImage } from "../../../src/core/source/images.ts";
import { locateStack, parseStack } from "../../../src/core/source/stacks.ts";

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A project with these files (path → text); a fresh SourceFiles over it. */
function project(files: Record<string, string>): SourceFiles {
  const root = mkdtempSync(join(tmpdir(), "vigie-source-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return new SourceFiles(root);
}

const DIAGRAM = "flowchart TD\n  A[Start] --> B{Decide\n  B -->|yes| C[Done";
const article = (before: string, after = "") => `---\ntitle: t\n---\n\n${before}\n\n\`\`\`mermaid\n${DIAGRAM}\n\`\`\`\n\n${after}\n`;

describe("diagrams", () => {
  test("a fence: the line of its ```mermaid, whatever the page did to whitespace", () => {
    const files = project({ "src/content/articles/en/a.mdx": article("Some text.\n\nMore.") });
    const pageText = DIAGRAM.replace(/\n {2}/g, "\n");
    assert.deepEqual(locateDiagram(files, pageText, "http://127.0.0.1:4321/en/articles/a/"), {
      source: "src/content/articles/en/a.mdx:9",
    });
  });

  test("a component's code={`...`}: the line of its tag, escapes undone", () => {
    const text =
      "---\nimport Mermaid from '../../components/Mermaid.astro';\n---\n\nIntro.\n\n<Mermaid\n  code={`sequenceDiagram\n  A->>B: say \\`hi\\`\n  B-->>A: ok`}\n/>\n";
    const files = project({ "src/content/articles/en/b.mdx": text });
    assert.deepEqual(locateDiagram(files, "sequenceDiagram\nA->>B: say `hi`\nB-->>A: ok", "http://h/en/articles/b/"), {
      source: "src/content/articles/en/b.mdx:7",
    });
  });

  test("the same diagram in two translations: the one the page's URL names", () => {
    const files = project({
      "src/content/articles/en/mermaid-in-the-browser.mdx": article("English."),
      "src/content/articles/fr/mermaid-dans-le-navigateur.mdx": article("Français.\n\nDeux.\n\nTrois."),
    });
    assert.deepEqual(locateDiagram(files, DIAGRAM, "http://h/articles/mermaid-dans-le-navigateur/"), {
      source: "src/content/articles/fr/mermaid-dans-le-navigateur.mdx:11",
    });
    const tie = locateDiagram(files, DIAGRAM, "http://h/elsewhere/");
    assert.ok("sourceUnknown" in tie && /2 files/.test(tie.sourceUnknown), JSON.stringify(tie));
  });

  test("a diagram shown as code (```md fence) is not its source; no text, no guess", () => {
    const files = project({ "src/content/articles/en/c.mdx": `Intro.\n\n\`\`\`md\n\`\`\`mermaid\n${DIAGRAM}\n\`\`\`\n\`\`\`\n` });
    assert.match(JSON.stringify(locateDiagram(files, DIAGRAM, "http://h/")), /sourceUnknown.*not found in src/);
    assert.match(JSON.stringify(locateDiagram(files, undefined, "http://h/")), /does not hold the diagram's text/);
  });

  test("files are read per locator object: an edit shows in the next check", () => {
    const files = project({ "src/pages/d.astro": `<pre class="mermaid">${DIAGRAM}</pre>\n` });
    assert.deepEqual(locateDiagram(files, DIAGRAM), { source: "src/pages/d.astro:1" });
    writeFileSync(join(files.root, "src/pages/d.astro"), `<h1>x</h1>\n\n<pre class="mermaid">${DIAGRAM}</pre>\n`);
    assert.deepEqual(locateDiagram(new SourceFiles(files.root), DIAGRAM), { source: "src/pages/d.astro:3" });
  });
});

describe("images", () => {
  const files = () =>
    project({
      "src/content/articles/en/pics.mdx": [
        "---",
        "title: t",
        "---",
        'import devLoop from "../../../assets/figures/dev-loop.png";',
        'import Figure from "../../../components/Figure.astro";',
        "",
        "Text about /images/missing.png in prose.",
        "",
        "![A missing picture](/images/missing.png)",
        "",
        '<Figure src={devLoop} alt="loop" />',
        "",
        "```ts",
        'import other from "../../../assets/figures/dev-loop.png";',
        "```",
        "",
        '<img src="/images/no-alt.png" />',
      ].join("\n"),
      "src/assets/figures/dev-loop.png": "png",
    });

  test("a public path as written in Markdown or <img>", () => {
    const project = files();
    assert.deepEqual(locateImage(project, "http://127.0.0.1:4321/images/missing.png", "http://127.0.0.1:4321/en/articles/pics/"), {
      source: "src/content/articles/en/pics.mdx:9",
    });
    assert.deepEqual(locateImage(project, "/images/no-alt.png", "http://127.0.0.1:4321/en/articles/pics/"), {
      source: "src/content/articles/en/pics.mdx:17",
    });
  });

  test("an imported image: the line that uses it, from a dev URL or a built /_astro/ one", () => {
    const project = files();
    const page = "http://127.0.0.1:4321/en/articles/pics/";
    const dev = `/_image?href=${encodeURIComponent(`/@fs${project.root}/src/assets/figures/dev-loop.png?origWidth=1200&origFormat=png`)}&w=760&f=webp`;
    assert.deepEqual(locateImage(project, `http://127.0.0.1:4321${dev}`, page), { source: "src/content/articles/en/pics.mdx:11" });
    assert.deepEqual(locateImage(project, `http://127.0.0.1:4321/@fs${project.root}/src/assets/figures/dev-loop.png`, page), {
      source: "src/content/articles/en/pics.mdx:11",
    });
    assert.deepEqual(locateImage(project, "http://127.0.0.1:4321/_astro/dev-loop.B7sZ3kQ_.webp", page), {
      source: "src/content/articles/en/pics.mdx:11",
    });
  });

  test("an image no source references: says so", () => {
    const located = locateImage(files(), "http://127.0.0.1:4321/images/nowhere.png", "http://127.0.0.1:4321/");
    assert.deepEqual(located, { sourceUnknown: "this URL not found in src/" });
  });
});

describe("stack frames", () => {
  test("V8 stacks parse into frames, with or without a function name", () => {
    const stack = [
      "Error: boom",
      "    at explode (http://127.0.0.1:4321/src/components/X.astro?astro&type=script&index=0&lang.ts:3:8)",
      "    at http://127.0.0.1:4321/src/scripts/y.ts:5:12",
      "    at <anonymous>",
    ].join("\n");
    assert.deepEqual(parseStack(stack), [
      { url: "http://127.0.0.1:4321/src/components/X.astro?astro&type=script&index=0&lang.ts", line: 3, column: 8 },
      { url: "http://127.0.0.1:4321/src/scripts/y.ts", line: 5, column: 12 },
    ]);
    assert.deepEqual(parseStack(undefined), []);
  });

  test("an inline script of the page: found by its text in the sources", async () => {
    const files = project({
      "src/pages/faults/throw.astro": '---\n---\n<html><body>\n<script is:inline>throw new Error("on purpose");</script>\n</body></html>\n',
    });
    const html = '<!DOCTYPE html><html><head></head><body>\n<script>throw new Error("on purpose");</script>\n</body></html>';
    const page = "http://127.0.0.1:4321/faults/throw/";
    const fetchText = async (url: string) => (url === page ? html : undefined);
    assert.deepEqual(await locateStack(files, [{ url: page, line: 2, column: 9 }], page, fetchText), {
      source: "src/pages/faults/throw.astro:4",
    });
  });

  test("a minified script the build inlined: found by its string literal, whatever the quotes", async () => {
    const files = project({
      "src/components/Later.astro":
        "<p>later</p>\n<script>\n  setTimeout(() => {\n    throw new Error('inlined component failed on purpose');\n  });\n</script>\n",
      "src/pages/index.astro": "<h1>hi</h1>\n",
    });
    const minified = 'setTimeout(()=>{throw new Error("inlined component failed on purpose")});';
    const html = `<!DOCTYPE html><html><head></head><body><h1>hi</h1><script type="module">${minified}</script></body></html>`;
    const page = "http://127.0.0.1:4321/";
    const fetchText = async (url: string) => (url === page ? html : undefined);
    const column = html.indexOf("throw") + 1;
    assert.deepEqual(await locateStack(files, [{ url: page, line: 1, column }], page, fetchText), {
      source: "src/components/Later.astro:4",
    });
  });

  test("what cannot be known is said: no stack, another origin, a script without a map", async () => {
    const files = project({ "src/pages/index.astro": "<h1>hi</h1>\n" });
    const page = "http://127.0.0.1:4321/";
    const none = async () => undefined;
    assert.deepEqual(await locateStack(files, [], page, none), { sourceUnknown: "no stack" });
    assert.deepEqual(await locateStack(files, [{ url: "https://cdn.example/x.js", line: 1, column: 1 }], page, none), {
      sourceUnknown: "a script from https://cdn.example",
    });
    const bundled = async (url: string) => (url.endsWith(".js") ? "throw new Error('x');\n" : undefined);
    const located = await locateStack(files, [{ url: "http://127.0.0.1:4321/_astro/page.Ab12Cd.js", line: 1, column: 1 }], page, bundled);
    assert.deepEqual(located, { sourceUnknown: "/_astro/page.Ab12Cd.js: the script has no source map" });
  });
});
