// A picture of the first failing pages of the crawl, for the HTML report.
import { writeFileSync } from "node:fs";
import { hasFaults, type PageFindings } from "../../browser/findings.ts";
import { capture } from "../../browser/screenshot.ts";
import { checkPage } from "../../browser/watch.ts";
import { relativePath, statePath } from "../../project.ts";
import { withTimeout } from "../../wait.ts";
import type { ValidateContext } from "../context.ts";
import type { ValidationReport } from "../findings.ts";

/** At most this many failing pages get a picture. */
const SHOTS = 4;

async function shoot(ctx: ValidateContext, url: string): Promise<Buffer> {
  return ctx.options.session.withPage(async (browserPage) =>
    withTimeout(
      (async () => {
        await checkPage(browserPage, url);
        return capture(browserPage, { fullPage: false });
      })(),
      45_000,
      () => browserPage.close(),
    ),
  );
}

/** Screenshots of the first failing pages, saved under the state folder; a page that cannot be pictured is left out. */
export async function screenshotFailing(
  ctx: ValidateContext,
  pagesUrl: string,
  pages: (PageFindings & { path: string })[],
): Promise<ValidationReport["screenshots"]> {
  const shots: ValidationReport["screenshots"] = [];
  // A page that did not answer 2xx would picture an error page: its findings say enough.
  const pictured = pages.filter((page) => hasFaults(page) && page.status >= 200 && page.status < 300);
  for (const page of pictured.slice(0, SHOTS)) {
    const name = `${page.path.replace(/\W+/g, "-").replace(/^-|-$/g, "") || "home"}.png`;
    const file = await shoot(ctx, `${pagesUrl}${page.path}`)
      .then((png) => {
        const path = statePath(ctx.project, "reports", "screenshots", name);
        writeFileSync(path, png);
        return relativePath(ctx.project, path);
      })
      .catch(() => undefined);
    if (file) shots.push({ page: page.path, file });
  }
  return shots;
}
