// The link checker on a built copy of the blog with a broken internal link, a broken
// #fragment and a missing image, each in its own article: all three found, with the
// page, the reason and the source line; nothing else. One build for the three.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type Answer, MAX_ANSWER_BYTES } from "../../../src/core/answer.ts";
import { readSite } from "../../../src/core/astro/site.ts";
import { runBuild } from "../../../src/core/build/build.ts";
import { checkLinks, type LinkCheckResult } from "../../../src/core/links/links.ts";
import { buildTools } from "../../../src/tools/build.ts";
import { runTool } from "../../../src/tools/run.ts";
import { type Article, appendBlock, articles } from "../../support/articles.ts";
import { type BlogCopy, copyBlog } from "../../support/blog.ts";

const linksTool = buildTools.find((tool) => tool.exportName === "links");

describe("blog_build_links on a built copy with broken links", () => {
  let copy: BlogCopy;
  let result: LinkCheckResult;
  const faults: { name: string; article: Article; line: number; to: string; reason: RegExp }[] = [];

  before(async () => {
    copy = copyBlog("link-faults");
    const en = articles(copy.root).filter((article) => article.lang === "en");
    const [first, second, third, target] = en;
    assert.ok(first && second && third && target, "four English articles");
    const missingPage = "/en/articles/no-such-article/";
    faults.push({
      name: "broken internal link",
      article: first,
      line: appendBlock(copy.root, first.file, `See [the missing article](${missingPage}).`),
      to: missingPage,
      reason: /not found/,
    });
    const missingFragment = `${target.route}#no-such-section`;
    faults.push({
      name: "broken #fragment",
      article: second,
      line: appendBlock(copy.root, second.file, `See [a missing section](${missingFragment}).`),
      to: missingFragment,
      reason: /no id="no-such-section"/,
    });
    const missingImage = "/images/no-such-image.png";
    faults.push({
      name: "missing image",
      article: third,
      line: appendBlock(copy.root, third.file, `<img src="${missingImage}" alt="An image that is not there" />`),
      to: missingImage,
      reason: /not found/,
    });
    const build = await runBuild(readSite(copy));
    assert.equal(build.success, true, `the faults do not break the build: ${JSON.stringify(build.errors)}`);
    result = await checkLinks(readSite(copy));
  });

  after(() => copy?.remove());

  for (const name of ["broken internal link", "broken #fragment", "missing image"]) {
    test(`finds the ${name} with its page and source line`, () => {
      const fault = faults.find((item) => item.name === name);
      assert.ok(fault);
      const found = result.broken.find((link) => link.to === fault.to);
      assert.ok(found, `${name}: ${JSON.stringify(result.broken)}`);
      assert.equal(found.from, fault.article.route);
      assert.match(found.reason, fault.reason);
      assert.equal(found.source, `${fault.article.file}:${fault.line}`);
      assert.equal(found.pages, 1);
    });
  }

  test("nothing else is broken, and the rest was really checked", () => {
    assert.deepEqual(result.broken.map((link) => link.to).sort(), faults.map((fault) => fault.to).sort());
    assert.ok(result.pages > 50, `pages: ${result.pages}`);
    assert.ok(result.checked > result.pages * 10, `checked: ${result.checked}`);
    assert.equal(result.stale, undefined);
  });

  test("the tool's answer is small and its report lists every broken link", async () => {
    assert.ok(linksTool);
    const answer = await runTool(linksTool, {}, { project: copy });
    assert.ok(Buffer.byteLength(JSON.stringify(answer)) <= MAX_ANSWER_BYTES);
    assert.equal(answer.success, false);
    assert.equal((answer.broken as Answer[]).length, 3);
    assert.equal(answer.more, undefined);
    const { report: path } = answer.files as { report: string };
    const report = JSON.parse(readFileSync(join(copy.root, path), "utf8")) as { broken: unknown[]; external: unknown[] };
    assert.equal(report.broken.length, 3);
    assert.ok(Array.isArray(report.external));
  });
});

describe("blog_build_links without a build", () => {
  let copy: BlogCopy;
  before(() => {
    copy = copyBlog("links-no-dist");
  });
  after(() => copy?.remove());

  test("answers an error with the hint to build first", async () => {
    assert.ok(linksTool);
    assert.equal(existsSync(join(copy.root, "dist")), false);
    const answer = await runTool(linksTool, {}, { project: copy });
    assert.match(String(answer.error), /dist\/ does not exist/);
    assert.match(String(answer.hint), /blog_build_run/);
  });
});
