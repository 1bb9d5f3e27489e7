// vigie from the tarball of `npm pack` on sites of the Astro versions before the one this
// repository runs, 5 and 6, still what many sites are on: the minimal site made from npm
// packages only, then `npx vigie init` and `npx vigie validate`. Clean, a PASS whose build did not
// wait out the dev server vigie started once it listened (Astro 5 and 6 write no .astro/dev.json); a page that
// throws while it is generated, a FAIL naming the page, its file and the error as these versions
// print it.
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { assertFailNaming, assertPass, figure, initSite, seconds, validateSite } from "./support/package-checks.ts";
import { endAll, type InstalledSite, installSite, MINIMAL_SITE, packedVigie } from "./support/site-install.ts";

const VERSIONS: [major: string, version: string][] = [
  ["5", "5.18.2"],
  ["6", "6.4.8"],
];

const BROKEN = `---
const title = "Broken";
throw new Error("the page broke on purpose");
---
<html lang="en"><head><meta charset="utf-8" /><title>{title}</title></head><body><p>{title}</p></body></html>
`;

for (const [major, version] of VERSIONS) {
  describe(`vigie from npm on Astro ${major} (${version})`, { timeout: 900_000 }, () => {
    let site: InstalledSite | undefined;

    before(async () => {
      const packed = await packedVigie();
      site = await installSite({ ...MINIMAL_SITE, name: `astro${major}`, dependencies: { astro: version } }, packed.tarball);
      figure(`Astro ${major} site: npm install ${seconds(site.installMs)}`);
      await initSite(site);
    });

    after(() => {
      endAll();
      site?.remove();
    });

    test("clean: PASS, and the build did not wait out a dev server already listening", async () => {
      assert.ok(site);
      const run = await validateSite(site, "clean.json");
      figure(`Astro ${major}: clean validate ${seconds(run.result.ms)}, ${run.report.verdict}`);
      assertPass(run);
      assert.match(site.read("node_modules/astro/package.json"), new RegExp(`"version": "${version.replaceAll(".", "\\.")}"`));
      const log = site.read(".opencode/reports/build.log");
      // A build may wait while vigie's dev server starts beside it (a loaded machine), never past its listening.
      assert.doesNotMatch(log, /for a dev server starting .*still starting when the wait ran out/, log.slice(0, 1500));
    });

    test("a page that throws while it is generated: FAIL naming the page, its file and the error", async () => {
      assert.ok(site);
      site.write("src/pages/broken.astro", BROKEN);
      try {
        const run = await validateSite(site, "broken.json");
        const finding = assertFailNaming(run, { tools: ["blog_build_run"], page: /\/broken/, what: /the page broke on purpose/ });
        figure(`Astro ${major}: ${finding.page} ${finding.file}: ${finding.message}`);
        assert.match(finding.file ?? "", /^src\/pages\/broken\.astro/, JSON.stringify(finding));
      } finally {
        rmSync(join(site.root, "src/pages/broken.astro"), { force: true });
      }
    });
  });
}
