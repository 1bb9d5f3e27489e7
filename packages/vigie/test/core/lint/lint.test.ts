// The content and Mermaid linters on a copy of the blog with one fault per article:
// each fault found by the right linter at the right file, line (and column), and
// nothing else reported (the untouched articles give no false positive).
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type Answer, MAX_ANSWER_BYTES } from "../../../src/core/answer.ts";
import { readSite } from "../../../src/core/astro/site.ts";
import { type LintResult, lint } from "../../../src/core/checks/lint.ts";
import { closeMermaidParsers } from "../../../src/core/lint/mermaid/parser.ts";
import type { LintProblem } from "../../../src/core/lint/problem.ts";
import { buildTools } from "../../../src/tools/build.ts";
import { runTool } from "../../../src/tools/run.ts";
import { appendBlock, articles, lineOf } from "../../support/articles.ts";
import { type BlogCopy, copyBlog } from "../../support/blog.ts";

interface Expected {
  name: string;
  file: string;
  line: number;
  column?: number;
  rule: LintProblem["rule"];
  message: RegExp;
  hint?: RegExp;
}

describe("blog_build_lint on injected faults", () => {
  let copy: BlogCopy;
  const expected: Expected[] = [];
  let result: LintResult;

  before(async () => {
    copy = copyBlog("lint-faults");
    const all = articles(copy.root);
    const en = all.filter((article) => article.lang === "en");
    const fr = all.filter((article) => article.lang === "fr");
    const pick = (list: typeof all, index: number) => {
      const article = list[index];
      assert.ok(article, `the blog has at least ${index + 1} articles in this language`);
      return article;
    };

    // An invalid flowchart in a fence: the third line of the diagram is wrong.
    const flowchart = pick(en, 0);
    const fence = appendBlock(copy.root, flowchart.file, "```mermaid\nflowchart TD\n  A[Start] --> B[Build]\n  B -->> C[Deploy]\n```");
    expected.push({ name: "invalid flowchart", file: flowchart.file, line: fence + 3, rule: "mermaid", message: /Parse error on line 3/ });

    // An invalid sequence diagram in a <Mermaid code={`...`} /> prop: a message without its colon.
    const sequence = pick(fr, 0);
    const component = appendBlock(
      copy.root,
      sequence.file,
      '<Mermaid code={`sequenceDiagram\n  participant A as Agent\n  participant B as Build\n  A->>B lancer`} caption="Séquence" />',
    );
    expected.push({
      name: "invalid sequence diagram",
      file: sequence.file,
      line: component + 3,
      rule: "mermaid",
      message: /Parse error on line 4/,
    });

    const prose = (article: (typeof all)[number], text: string, needle: string) => {
      const line = appendBlock(copy.root, article.file, text);
      return { line, column: text.indexOf(needle) + 1 };
    };
    const foo = pick(en, 1);
    expected.push({
      name: "{foo}",
      file: foo.file,
      ...prose(foo, "The value {foo} is read as code.", "{foo}"),
      rule: "mdx-expression",
      message: /foo is not defined/,
      hint: /\\\{foo\\\}/,
    });
    const fooBar = pick(en, 2);
    expected.push({
      name: "{foo bar}",
      file: fooBar.file,
      ...prose(fooBar, "The set {foo bar} is not an expression.", "{foo bar}"),
      rule: "mdx-syntax",
      message: /not a JavaScript expression/,
      hint: /\\\{foo bar\\\}/,
    });
    const sequenceExpression = pick(fr, 1);
    expected.push({
      name: "{1,2}",
      file: sequenceExpression.file,
      ...prose(sequenceExpression, "La paire {1,2} devient un chiffre.", "{1,2}"),
      rule: "mdx-expression",
      message: /renders "2"/,
    });
    const lone = pick(en, 3);
    expected.push({
      name: "lone {",
      file: lone.file,
      ...prose(lone, "A lone { brace here.", "{"),
      rule: "mdx-syntax",
      message: /lone \{/,
      hint: /\\\{/,
    });
    expected.push({
      name: "unclosed tag",
      file: lone.file,
      ...prose(lone, "An <span>unclosed tag here.", "<span>"),
      rule: "mdx-syntax",
      message: /closing tag for `<span>`/,
    });

    const image = pick(en, 4);
    const imageLine = appendBlock(copy.root, image.file, "![A figure that is not there](../../../assets/figures/not-there.png)");
    expected.push({ name: "missing image", file: image.file, line: imageLine, rule: "image", message: /not-there\.png" does not exist/ });

    // A tag the collection schema refuses (lowercase words joined by hyphens).
    const tagged = pick(en, 5);
    const taggedPath = join(copy.root, tagged.file);
    writeFileSync(taggedPath, readFileSync(taggedPath, "utf8").replace(/^tags: \[/m, "tags: [Bad Tag, "));
    expected.push({
      name: "frontmatter",
      file: tagged.file,
      line: lineOf(copy.root, tagged.file, /^tags:/),
      rule: "frontmatter",
      message: /tags\[0\]: "Bad Tag" does not match/,
    });

    // A French article whose English translation is gone.
    const orphan = fr.find((article) => en.some((other) => other.key === article.key) && ![sequence, sequenceExpression].includes(article));
    assert.ok(orphan, "a French article with an English translation");
    const translation = en.find((article) => article.key === orphan.key);
    assert.ok(translation);
    assert.ok(![flowchart, foo, fooBar, lone, image, tagged].includes(translation), "the deleted article carries no other fault");
    rmSync(join(copy.root, translation.file));
    expected.push({
      name: "missing EN translation",
      file: orphan.file,
      line: lineOf(copy.root, orphan.file, /^key:/),
      rule: "translation",
      message: /no en translation/,
      hint: new RegExp(`src/content/articles/en/.*key: ${orphan.key}`),
    });

    result = await lint(readSite(copy));
  });

  after(async () => {
    await closeMermaidParsers();
    copy?.remove();
  });

  const problems = () => [...(result.content?.problems ?? []), ...(result.mermaid?.problems ?? [])];

  for (const name of [
    "invalid flowchart",
    "invalid sequence diagram",
    "{foo}",
    "{foo bar}",
    "{1,2}",
    "lone {",
    "unclosed tag",
    "missing image",
    "missing EN translation",
    "frontmatter",
  ]) {
    test(`finds ${name} at its file and line`, () => {
      const want = expected.find((item) => item.name === name);
      assert.ok(want);
      const found = problems().find((problem) => problem.file === want.file && problem.line === want.line && problem.rule === want.rule);
      assert.ok(found, `${name}: expected ${want.rule} at ${want.file}:${want.line}, got ${JSON.stringify(problems(), null, 1)}`);
      assert.match(found.message, want.message);
      if (want.column !== undefined) assert.equal(found.column, want.column, `${name}: column`);
      if (want.hint) assert.match(found.hint, want.hint);
      assert.ok(found.hint.length > 10);
    });
  }

  test("reports nothing but the injected faults", () => {
    const unexpected = problems().filter(
      (problem) => !expected.some((want) => want.file === problem.file && want.line === problem.line && want.rule === problem.rule),
    );
    assert.deepEqual(unexpected, []);
    assert.deepEqual(result.mermaid?.notes, [], "mermaid was loaded and every diagram parsed");
    assert.equal(result.mermaid?.success, false);
    assert.equal(result.content?.success, false);
  });

  test("the tool's answer stays under 2 KB, counts everything and points at the full report", async () => {
    const lintTool = buildTools.find((tool) => tool.exportName === "lint");
    assert.ok(lintTool);
    const answer = (await runTool(lintTool, {}, { project: copy })) as Answer & { content: Answer; mermaid: Answer };
    assert.ok(Buffer.byteLength(JSON.stringify(answer)) <= MAX_ANSWER_BYTES, JSON.stringify(answer));
    assert.equal(answer.success, false);
    assert.equal(answer.mermaid.count, 2);
    assert.equal(answer.content.count, expected.length - 2);
    assert.ok((answer.content.problems as unknown[]).length >= 3, "the first problems are in the answer");
    const report = join(copy.root, (answer.files as { report: string }).report);
    assert.ok(existsSync(report));
    const full = JSON.parse(readFileSync(report, "utf8")) as LintResult;
    assert.equal((full.content?.problems.length ?? 0) + (full.mermaid?.problems.length ?? 0), expected.length);
  });

  test("path narrows the report to one file; a path that does not exist is refused by name", async () => {
    const lintTool = buildTools.find((tool) => tool.exportName === "lint");
    assert.ok(lintTool);
    const flowchart = expected[0] as Expected;
    const answer = (await runTool(lintTool, { linter: "mermaid", path: flowchart.file }, { project: copy })) as Answer & {
      mermaid: Answer;
    };
    assert.equal(answer.mermaid.count, 1);
    assert.equal(answer.content, undefined);
    const refused = await runTool(lintTool, { path: "src/content/nowhere" }, { project: copy });
    assert.match(String(refused.error), /path "src\/content\/nowhere"/);
    const outside = await runTool(lintTool, { path: "../.." }, { project: copy });
    assert.match(String(outside.error), /path "\.\.\/\.\."/);
    assert.match(String(refused.hint), /relative to the project root/);
  });
});
