// astro.config.* read as a syntax tree: the forms real configs take (TypeScript, constants,
// functions, CommonJS), and text that only looks like a setting.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { type AstroSettings, readAstroSettings } from "../../../src/core/astro/astroConfig.ts";
import { resolveProject } from "../../../src/core/project.ts";

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function settingsOf(files: Record<string, string>): AstroSettings {
  const root = mkdtempSync(join(tmpdir(), "vigie-astro-config-"));
  roots.push(root);
  for (const [path, text] of Object.entries({ "package.json": '{"name":"site"}', ...files })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return readAstroSettings(resolveProject(root));
}

const pick = (settings: AstroSettings) => ({
  site: settings.site,
  base: settings.base,
  trailingSlash: settings.trailingSlash,
  locales: settings.locales,
  defaultLocale: settings.defaultLocale,
  prefixDefaultLocale: settings.prefixDefaultLocale,
  sitemap: settings.sitemap,
  starlight: settings.starlight,
});

describe("readAstroSettings", () => {
  test("a TypeScript config with types, constants and shorthand properties", () => {
    const settings = settingsOf({
      "astro.config.ts": `import { defineConfig } from "astro/config";
import type { AstroUserConfig } from "astro";
import sitemap from "@astrojs/sitemap";
const site: string = "https://example.com/";
const locales = ["en", { path: "french", codes: ["fr", "fr-CA"] }] as const;
export default defineConfig({
  site,
  base: \`/blog\`,
  outDir: "./build",
  trailingSlash: "always",
  i18n: { defaultLocale: "en", locales: [...locales], routing: { prefixDefaultLocale: true } },
  integrations: [sitemap()],
} satisfies AstroUserConfig);
`,
    });
    assert.deepEqual(pick(settings), {
      site: "https://example.com",
      base: "/blog/",
      trailingSlash: "always",
      locales: ["en", "french"],
      defaultLocale: "en",
      prefixDefaultLocale: true,
      sitemap: true,
      starlight: false,
    });
    assert.ok(settings.outDir.endsWith("/build"));
  });

  test("locales given inline, { path, codes } by their path", () => {
    const settings = settingsOf({
      "astro.config.mjs": `export default { i18n: { defaultLocale: "en", locales: ["en", { path: "french", codes: ["fr", "fr-CA"] }] } };\n`,
    });
    assert.deepEqual(settings.locales, ["en", "french"]);
    assert.equal(settings.prefixDefaultLocale, false);
  });

  test("comments and strings that look like settings are not settings", () => {
    const settings = settingsOf({
      "astro.config.mjs": `// base: "/old"
/* site: "https://old.example.com" */
import { defineConfig } from "astro/config";
const note = "trailingSlash: 'never', @astrojs/sitemap";
export default defineConfig({ vite: { define: { BASE: JSON.stringify("base: '/x'") } } });
`,
    });
    assert.deepEqual(pick(settings), {
      site: undefined,
      base: "/",
      trailingSlash: "ignore",
      locales: [],
      defaultLocale: undefined,
      prefixDefaultLocale: false,
      sitemap: false,
      starlight: false,
    });
  });

  test("a config built by a function, CommonJS, and Starlight imported under another name", () => {
    const fromFunction = settingsOf({
      "astro.config.mjs": `import { defineConfig } from "astro/config";\nexport default defineConfig(() => { return { base: "/docs/" }; });\n`,
    });
    assert.equal(fromFunction.base, "/docs/");
    const commonJs = settingsOf({
      "astro.config.cjs": `const sitemap = require("@astrojs/sitemap");\nmodule.exports = { base: "app", integrations: [sitemap()] };\n`,
    });
    assert.equal(commonJs.base, "/app/");
    assert.equal(commonJs.sitemap, true);
    const docs = settingsOf({
      "astro.config.mjs": `import docs from "@astrojs/starlight";
const options = { title: "D", defaultLocale: "fr", locales: { fr: { label: "Français" }, "pt-br": { label: "Português" } } };
export default { site: "https://d.example", integrations: [docs(options)] };
`,
    });
    assert.deepEqual(pick(docs), {
      site: "https://d.example",
      base: "/",
      trailingSlash: "ignore",
      locales: ["fr", "pt-br"],
      defaultLocale: "fr",
      prefixDefaultLocale: true,
      sitemap: true,
      starlight: true,
    });
  });

  test("the Starlight components a site replaces (its `components` option)", () => {
    const docs = settingsOf({
      "astro.config.mjs": `import { defineConfig } from "astro/config";
import starlight from "@astrojs/starlight";
export default defineConfig({
  integrations: [starlight({ title: "D", components: { Search: "./src/components/Search.astro", "Header": "./src/components/Header.astro" } })],
});
`,
    });
    assert.deepEqual(docs.starlightComponents, ["Search", "Header"]);
    const plain = settingsOf({
      "astro.config.mjs": `import starlight from "@astrojs/starlight";
export default { integrations: [starlight({ title: "D" })] };
`,
    });
    assert.equal(plain.starlightComponents, undefined);
  });

  test("a config that does not parse gives Astro's defaults", () => {
    const settings = settingsOf({ "astro.config.mjs": "export default { base: '/x',, };\n" });
    assert.equal(settings.configFile, "astro.config.mjs");
    assert.equal(settings.base, "/");
  });
});
