// The config is parsed once per content: a run or a tool call reads its Site through one cached
// reader, and an edited, added or removed config is read again.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { doctor } from "../../../src/cli/doctor.ts";
import { astroConfigReads } from "../../../src/core/astro/astroConfig.ts";
import { readSite } from "../../../src/core/astro/site.ts";
import { projectAt } from "../../../src/core/project.ts";

const root = mkdtempSync(join(tmpdir(), "vigie-config-read-"));
after(() => rmSync(root, { recursive: true, force: true }));
writeFileSync(join(root, "package.json"), "{}");
const project = projectAt(root);
const config = (text: string) => writeFileSync(join(root, "astro.config.mjs"), text);

describe("the Astro config, read through one cache", () => {
  test("read twice, parsed once; the settings are shared and frozen", () => {
    config('export default { base: "/docs" };\n');
    const before = astroConfigReads();
    const first = readSite(project);
    const second = readSite(project);
    assert.equal(astroConfigReads() - before, 1);
    assert.equal(first.base, "/docs/");
    assert.equal(second.settings, first.settings);
    assert.ok(Object.isFrozen(first.settings));
  });

  test("an edited config is parsed again, with its new settings", () => {
    config('export default { base: "/docs" };\n');
    readSite(project);
    const before = astroConfigReads();
    config('export default { base: "/guide", trailingSlash: "never" };\n');
    const site = readSite(project);
    assert.equal(astroConfigReads() - before, 1);
    assert.equal(site.base, "/guide/");
    assert.equal(site.trailingSlash, "never");
  });

  test("a removed config is read as none", () => {
    config('export default { base: "/docs" };\n');
    readSite(project);
    rmSync(join(root, "astro.config.mjs"));
    const site = readSite(project);
    assert.equal(site.base, "/");
    assert.equal(site.settings.configFile, undefined);
  });

  test("vigie doctor parses the config once", () => {
    config('export default { base: "/doctor", i18n: { locales: ["en", "fr"], defaultLocale: "en" } };\n');
    const before = astroConfigReads();
    const report = doctor(project);
    assert.equal(astroConfigReads() - before, 1);
    const routes = report.items.find((item) => item.name === "Critical routes");
    assert.equal(routes?.found, "/doctor/ /doctor/fr/");
  });
});
