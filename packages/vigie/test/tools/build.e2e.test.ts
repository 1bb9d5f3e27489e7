// The four blog_build tools through runTool, as every face calls them: their
// definitions and argument checks, the clean blog (no problem from any tool), and the
// faults that break the build (a parse error, a render error, a timeout).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { z } from "zod";
import { type Answer, MAX_ANSWER_BYTES } from "../../src/core/answer.ts";
import { readSite } from "../../src/core/astro/site.ts";
import { runBuild } from "../../src/core/build/build.ts";
import { closeMermaidParsers } from "../../src/core/lint/mermaid/parser.ts";
import { buildTools } from "../../src/tools/build.ts";
import { runTool } from "../../src/tools/run.ts";
import { appendBlock, articles } from "../support/articles.ts";
import { type BlogCopy, copyBlog } from "../support/blog.ts";

function tool(name: string) {
  const definition = buildTools.find((candidate) => candidate.exportName === name);
  assert.ok(definition, name);
  return definition;
}

async function call(copy: BlogCopy, name: string, args: unknown = {}): Promise<Answer> {
  const answer = await runTool(tool(name), args, { project: copy });
  const bytes = Buffer.byteLength(JSON.stringify(answer));
  assert.ok(bytes <= MAX_ANSWER_BYTES, `${name}: ${bytes} bytes: ${JSON.stringify(answer)}`);
  assert.equal(answer.more, undefined, `${name}: nothing cut on the clean blog`);
  return answer;
}

/** Live processes of a process group (zombies excepted), from /proc. */
function groupMembers(pgid: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return fields[0] !== "Z" && Number(fields[2]) === pgid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe("blog_build definitions", () => {
  test("four tools of the build group, each small as the model sees it", () => {
    assert.deepEqual(
      buildTools.map((definition) => definition.exportName),
      ["run", "lint", "check", "links"],
    );
    for (const definition of buildTools) {
      assert.equal(definition.group, "build");
      const schema = JSON.stringify({ description: definition.description, parameters: z.toJSONSchema(z.object(definition.args(z))) });
      assert.ok(schema.length < 600, `${definition.exportName}: ${schema.length} bytes`);
    }
  });

  test("bad arguments are answered with the argument and the accepted form", async () => {
    const project = { root: "/nonexistent-vigie-project", stateDir: "/nonexistent-vigie-project/.opencode" };
    const cases: [string, unknown, RegExp][] = [
      ["run", { timeoutS: 0 }, /"timeoutS"/],
      ["run", { timeoutS: "fast" }, /"timeoutS"/],
      ["lint", { linter: "spelling" }, /"linter"/],
      ["check", { timeoutS: 5 }, /"timeoutS"/],
      ["check", { timeoutS: 5, wait_for_previous: true }, /"timeoutS"/],
    ];
    for (const [name, args, error] of cases) {
      const answer = await runTool(tool(name), args, { project });
      assert.match(String(answer.error), error, `${name} ${JSON.stringify(args)}`);
      assert.ok(String(answer.hint).length > 10);
    }
  });

  test("links without a build: the hint names the build tool, under the project's prefix", async () => {
    const root = mkdtempSync(join(tmpdir(), "vigie-links-"));
    try {
      const project = { root, stateDir: join(root, ".opencode") };
      const missing = await runTool(tool("links"), {}, { project, prefix: "docs" });
      assert.deepEqual(missing, {
        error: "no build output: dist/ does not exist",
        hint: "Run docs_build_run first, then check the links.",
      });
      mkdirSync(join(root, "dist"));
      const empty = await runTool(tool("links"), {}, { project });
      assert.deepEqual(empty, { error: "no HTML page in dist/", hint: "Run blog_build_run; if it fails, fix the build first." });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("blog_build on the clean blog", () => {
  let copy: BlogCopy;
  let build: Answer;
  before(async () => {
    copy = copyBlog("build-clean");
    build = await call(copy, "run");
  });
  after(async () => {
    await closeMermaidParsers();
    copy?.remove();
  });

  test("run: success, pages and bytes counted from dist/, no error, the log's tail", () => {
    assert.equal(build.success, true, JSON.stringify(build));
    assert.deepEqual(build.errors, []);
    assert.equal(build.warningCount, 0, JSON.stringify(build.warnings));
    const pages = readdirSync(join(copy.root, "dist"), { recursive: true }).filter((file) => String(file).endsWith(".html")).length;
    assert.equal(build.pageCount, pages);
    assert.ok((build.distBytes as number) > 100_000);
    assert.ok((build.durationS as number) > 0);
    assert.ok((build.outputTail as string[]).some((line) => /Complete!/.test(line)));
    assert.ok(
      (build.outputTail as string[]).every((line) => !line.includes("\u001b[")),
      "ANSI stripped",
    );
    assert.match(readFileSync(join(copy.root, (build.files as { report: string }).report), "utf8"), /page\(s\) built/);
  });

  test("lint: no problem from either linter", async () => {
    const answer = (await call(copy, "lint")) as Answer & { content: Answer; mermaid: Answer };
    assert.equal(answer.success, true, JSON.stringify(answer));
    assert.equal(answer.content.count, 0);
    assert.equal(answer.mermaid.count, 0);
    assert.ok((answer.mermaid.diagrams as number) > 5, "the diagrams were parsed");
    assert.ok((answer.fileCount as number) >= 24);
  });

  test("check: no error, no warning, no hint", async () => {
    const answer = await call(copy, "check");
    assert.equal(answer.success, true, JSON.stringify(answer));
    assert.deepEqual([answer.errors, answer.warnings, answer.hints], [0, 0, 0]);
  });

  test("links: nothing broken", async () => {
    const answer = await call(copy, "links");
    assert.equal(answer.success, true, JSON.stringify(answer));
    assert.deepEqual(answer.broken, []);
    assert.ok((answer.checked as number) > 1000);
  });
});

describe("blog_build_run on faults that break the build", () => {
  let parseFault: BlogCopy;
  let renderFault: BlogCopy;
  before(() => {
    parseFault = copyBlog("build-parse-fault");
    renderFault = copyBlog("build-render-fault");
  });
  after(() => {
    parseFault?.remove();
    renderFault?.remove();
  });

  test("{foo bar} in prose: the MDX error with its file and line", async () => {
    const article = articles(parseFault.root).find((candidate) => candidate.lang === "en");
    assert.ok(article);
    const text = "The set {foo bar} is not an expression.";
    const line = appendBlock(parseFault.root, article.file, text);
    const answer = await call(parseFault, "run");
    assert.equal(answer.success, false);
    const [error] = answer.errors as Answer[];
    assert.equal(error?.file, article.file);
    assert.equal(error?.line, line);
    assert.equal(error?.column, text.indexOf("{foo bar}") + 1);
    assert.match(String(error?.message), /Could not parse expression/);
    assert.match(String(answer.hint), /escape/);
  });

  test("a page whose render throws: the route, the .mdx file and the line of {foo}", async () => {
    const article = articles(renderFault.root).find((candidate) => candidate.lang === "fr");
    assert.ok(article);
    const text = "La valeur {foo} est lue comme du code.";
    const line = appendBlock(renderFault.root, article.file, text);
    const answer = await call(renderFault, "run");
    assert.equal(answer.success, false);
    const [error] = answer.errors as Answer[];
    assert.match(String(error?.message), /foo is not defined/);
    assert.equal(error?.route, article.route.replace(/\/$/, ""));
    assert.equal(error?.file, article.file);
    assert.equal(error?.line, line);
    assert.equal(error?.column, text.indexOf("{foo}") + 1);
  });

  test("a build past its timeout is killed with its whole process group", async () => {
    const result = await runBuild(readSite(parseFault), { timeoutMs: 1500 });
    assert.equal(result.success, false);
    assert.equal(result.timedOut, true);
    assert.match(result.errors[0]?.message ?? "", /timed out after 1\.5 s/);
    assert.ok(result.pid);
    assert.deepEqual(groupMembers(result.pid), [], "no process of the build is left");
    const answer = await call(parseFault, "run", { timeoutS: 1 });
    assert.equal(answer.success, false);
    assert.match(String((answer.errors as Answer[])[0]?.message), /timed out after 1 s/);
    assert.match(String(answer.hint), /timeoutS/);
  });
});
