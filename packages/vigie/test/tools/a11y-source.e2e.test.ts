// blog_browser_a11y names the component of a violating element where the page says it:
// on Astro's dev server with the dev toolbar on, the elements of `.astro` templates carry
// data-astro-source-file/-loc. Elements that the MDX content wrote carry nothing and get no
// component (never the layout around them); a page with no marks says why.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Answer } from "../../src/core/answer.ts";
import { sharedSession } from "../../src/core/browser/session/session.ts";
import { type Project, projectAt } from "../../src/core/project.ts";
import { type StaticServer, serveStatic } from "../../src/core/staticServer.ts";
import { findTool } from "../../src/tools/registry.ts";
import { runTool } from "../../src/tools/run.ts";
import { call, freePort, killEverythingIn } from "../core/devServer/helpers.ts";
import { type BlogCopy, copyBlog } from "../support/blog.ts";
import { appendToArticle } from "../support/faults.ts";

const COMPONENT = "src/components/UnnamedButton.astro";
const ARTICLE = "src/content/articles/en/orphan-dev-servers.mdx";

interface A11yAnswer extends Answer {
  violations: { id: string; source?: string }[];
  sourceUnknown?: string;
}

const a11y = (project: Project, args: Record<string, unknown>) => {
  const tool = findTool("blog_browser_a11y");
  assert.ok(tool);
  return runTool(tool, args, { project }) as Promise<A11yAnswer>;
};

describe("a11y violations name their component (dev server, dev toolbar on)", () => {
  let copy: BlogCopy;

  before(async () => {
    copy = copyBlog("a11y-source");
    const config = join(copy.root, "astro.config.mjs");
    writeFileSync(config, readFileSync(config, "utf8").replace("devToolbar: { enabled: false }", "devToolbar: { enabled: true }"));
    assert.match(readFileSync(config, "utf8"), /devToolbar: \{ enabled: true \}/);
    writeFileSync(
      join(copy.root, COMPONENT),
      ["---", "---", '<div class="probe">', '  <button class="unnamed"></button>', "</div>", ""].join("\n"),
    );
    const article = join(copy.root, ARTICLE);
    const text = readFileSync(article, "utf8").replace(
      /^(import devLoop .*)$/m,
      '$1\nimport UnnamedButton from "../../../components/UnnamedButton.astro";',
    );
    writeFileSync(article, text);
    appendToArticle(copy.root, "en", "orphan-dev-servers", '<UnnamedButton />\n\n<img src="/favicon.svg" />\n');
    const started = await call(copy, "start", { port: await freePort() });
    assert.equal(started.status, "started", JSON.stringify(started));
    await call(copy, "http_get", { path: "/en/articles/orphan-dev-servers/", timeoutMs: 90_000 });
  });

  after(async () => {
    await sharedSession().close();
    if (copy) {
      await call(copy, "stop").catch(() => undefined);
      killEverythingIn(copy);
      copy.remove();
    }
  });

  test("the button of a component gets its file and line; the MDX image its article's, not the layout's", async () => {
    const answer = await a11y(copy, { path: "/en/articles/orphan-dev-servers/" });
    const button = answer.violations.find((violation) => violation.id === "button-name");
    assert.ok(button, JSON.stringify(answer));
    assert.equal(button.source, `${COMPONENT}:4`, JSON.stringify(answer));
    const image = answer.violations.find((violation) => violation.id === "image-alt");
    assert.ok(image, JSON.stringify(answer));
    // Found by its src where the content writes it (as validate's crawl finds it), never in the layout around it.
    assert.ok(image.source === undefined || image.source.startsWith(`${ARTICLE}:`), JSON.stringify(image));
    assert.equal(answer.sourceUnknown, undefined);
    assert.ok(Buffer.byteLength(JSON.stringify(answer)) <= 2048);
  });
});

describe("a11y on a page without component marks", () => {
  let dir: string;
  let server: StaticServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "vigie-a11y-"));
    mkdirSync(join(dir, "site"));
    writeFileSync(join(dir, "package.json"), "{}");
    writeFileSync(
      join(dir, "site", "index.html"),
      '<!doctype html><html lang="en"><head><title>Probe</title></head><body><main><h1>Probe</h1><button></button></main></body></html>',
    );
    server = await serveStatic(join(dir, "site"));
  });

  after(async () => {
    await sharedSession().close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("says why no component is named rather than guessing", async () => {
    const answer = await a11y(projectAt(dir), { port: server.port });
    const button = answer.violations.find((violation) => violation.id === "button-name");
    assert.ok(button, JSON.stringify(answer));
    assert.equal(button.source, undefined);
    assert.match(answer.sourceUnknown ?? "", /dev toolbar/);
  });
});
