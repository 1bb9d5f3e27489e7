// Site facts read from an Astro config and the project, on configs unlike the blog's:
// no i18n with base and trailingSlash, another default locale, Starlight's locales.
import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { criticalRoutesOf, readAstroSettings } from "../../../src/core/astro/astroConfig.ts";
import { readSite, siteFacts } from "../../../src/core/astro/site.ts";
import { loadConfig } from "../../../src/core/config.ts";
import { projectAt } from "../../../src/core/project.ts";
import { serveStatic } from "../../../src/core/staticServer.ts";
import { missingCheckPackages } from "../../../src/core/typecheck/typecheck.ts";
import { FIXTURES_DIR } from "../../support/blog.ts";

const made: string[] = [];
after(() => {
  for (const root of made) rmSync(root, { recursive: true, force: true });
});

function site(files: Record<string, string>) {
  const root = join(FIXTURES_DIR, `facts-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  made.push(root);
  for (const [path, text] of Object.entries({ "package.json": "{}", ...files })) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return projectAt(root);
}

describe("site facts", () => {
  test("no i18n, base and trailingSlash: one critical route under the base, no sitemap", () => {
    const project = site({
      "astro.config.mjs": `import { defineConfig } from "astro/config";\nexport default defineConfig({ base: "/docs", trailingSlash: "never" });\n`,
    });
    const facts = siteFacts(readSite(project));
    assert.deepEqual(
      { base: facts.base, trailingSlash: facts.trailingSlash, locales: facts.locales, sitemap: facts.sitemap, starlight: facts.starlight },
      { base: "/docs/", trailingSlash: "never", locales: [], sitemap: false, starlight: false },
    );
    assert.deepEqual(facts.criticalRoutes, ["/docs"]);
  });

  test("several locales with another default; a glob collection outside src/content", () => {
    const project = site({
      "astro.config.mjs": `import sitemap from "@astrojs/sitemap";
export default {
  i18n: { defaultLocale: "de", locales: ["de", "fr", "it"], routing: { prefixDefaultLocale: false } },
  integrations: [sitemap()],
};
`,
      "src/content.config.ts": `const notes = defineCollection({ loader: glob({ pattern: "**/*.md", base: "./src/data/notes" }) });
export const collections = { notes };
`,
      "src/data/notes/de/a.md": "---\ntitle: A\n---\n",
      "src/data/notes/fr/a.md": "---\ntitle: A\n---\n",
    });
    const facts = siteFacts(readSite(project));
    assert.equal(facts.defaultLocale, "de");
    assert.deepEqual(facts.criticalRoutes, ["/", "/fr/", "/it/"]);
    assert.equal(facts.sitemap, true);
    assert.deepEqual(facts.collections, [{ name: "notes", folder: "src/data/notes", entries: 2 }]);
  });

  test("Starlight: its locales (root at the base), its docs collection, a sitemap when site is set", () => {
    const project = site({
      "astro.config.mjs": `import starlight from "@astrojs/starlight";
export default defineConfig({
  site: "https://docs.example.com",
  integrations: [
    starlight({
      title: "Docs",
      defaultLocale: "root",
      locales: { root: { label: "English", lang: "en" }, "pt-br": { label: "Português", lang: "pt-BR" } },
      sidebar: [{ label: "Guides", items: [{ autogenerate: { directory: "guides" } }] }],
    }),
  ],
});
`,
      "src/content.config.ts": `export const collections = { docs: defineCollection({ loader: docsLoader(), schema: docsSchema() }) };\n`,
      "src/content/docs/index.md": "---\ntitle: Home\n---\n",
      "src/content/docs/pt-br/index.md": "---\ntitle: Início\n---\n",
    });
    const facts = siteFacts(readSite(project));
    assert.equal(facts.starlight, true);
    assert.equal(facts.sitemap, true);
    assert.deepEqual(facts.locales, ["root", "pt-br"]);
    assert.deepEqual(facts.criticalRoutes, ["/", "/pt-br/"]);
    assert.deepEqual(facts.collections, [{ name: "docs", folder: "src/content/docs", entries: 2 }]);
  });

  test("Starlight without a root locale: every locale under its folder", () => {
    const settings = readAstroSettings(
      site({
        "astro.config.mjs": `export default { integrations: [starlight({ title: "D", defaultLocale: "en", locales: { en: { label: "English" }, fr: { label: "Français" } } })] };\n// @astrojs/starlight\n`,
      }),
    );
    assert.deepEqual(criticalRoutesOf(settings), ["/en/", "/fr/"]);
  });
});

describe("astro check's packages", () => {
  test("a project that cannot resolve @astrojs/check and typescript is told so", () => {
    const root = join("/tmp", `no-check-${process.pid}`);
    mkdirSync(root, { recursive: true });
    made.push(root);
    writeFileSync(join(root, "package.json"), "{}");
    assert.deepEqual(missingCheckPackages(projectAt(root)), ["@astrojs/check", "typescript"]);
    // Inside the repository both resolve by walking up.
    assert.deepEqual(missingCheckPackages(site({})), []);
  });
});

describe("accept in vigie.config.json", () => {
  const configError = (accept: unknown) => {
    const project = site({ "vigie.config.json": JSON.stringify({ accept }) });
    try {
      loadConfig(project);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };

  test("a rule with a selector and a reason is accepted", () => {
    assert.equal(configError([{ rule: "label-content-name-mismatch", selector: "site-search button", reason: "Starlight's" }]), undefined);
  });

  test("errors name the field", () => {
    assert.match(configError([{ rule: "image-alt" }]) ?? "", /accept\.0\.reason: reason is required/);
    assert.match(configError([{ rule: "image-alt", reason: "  " }]) ?? "", /accept\.0\.reason: reason may not be empty/);
    assert.match(configError([{ reason: "x" }]) ?? "", /accept\.0\.rule: rule is required/);
    assert.match(configError([{ rule: "x", reason: "y", page: "404.html" }]) ?? "", /accept\.0\.page: page is a site path/);
    assert.match(configError([{ rule: "x", reason: "y", because: "z" }]) ?? "", /accept\.0: unknown field because/);
  });
});

describe("the static server under a base", () => {
  test("serves dist/ at /docs/ as Astro's base puts it, and the 404 page elsewhere", async () => {
    const project = site({
      "dist/index.html": "<title>home</title>",
      "dist/about/index.html": "<title>about</title>",
      "dist/404.html": "<title>not found</title>",
    });
    const server = await serveStatic(join(project.root, "dist"), { base: "/docs/" });
    try {
      const get = async (path: string) => {
        const response = await fetch(`${server.url}${path}`);
        return `${response.status} ${await response.text()}`;
      };
      assert.equal(await get("/docs/"), "200 <title>home</title>");
      assert.equal(await get("/docs"), "200 <title>home</title>");
      assert.equal(await get("/docs/about/"), "200 <title>about</title>");
      assert.equal(await get("/docs/about"), "200 <title>about</title>");
      assert.equal(await get("/about/"), "404 <title>not found</title>");
      assert.equal(await get("/docsabout/"), "404 <title>not found</title>");
    } finally {
      await server.close();
    }
  });
});
