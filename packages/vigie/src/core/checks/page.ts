// One page checked as js_errors and validate's flows both check it: loaded in a clean page of
// the warm browser (with the config's saved login), the reader's actions run after the load,
// each fault located in the sources, and a 5xx (the page's, or a request's) asked again of the
// project's own server while its log is read, so the fault names the error and its source.
import { join } from "node:path";
import type { Action } from "../actions.ts";
import { builtDirs, type Site } from "../astro/site.ts";
import { checkJsErrors, locateInTime } from "../browser/load/jsErrors.ts";
import { checkPageAsSite } from "../browser/page/devMachinery.ts";
import type { PageFault } from "../browser/page/faults.ts";
import type { PageFindings } from "../browser/page/findings.ts";
import { hostOf, NetworkView } from "../browser/page/network.ts";
import { saveState, withState } from "../browser/page/state.ts";
import type { BrowserSession } from "../browser/session/session.ts";
import { checksPhone, storageStateOf, type VigieConfig } from "../config.ts";
import { withTimeout } from "../wait.ts";
import { causeLines, failureCauses, faultsWithCauses } from "./pageCauses.ts";
import { devLog } from "./serverErrors.ts";

export interface SitePageOptions {
  session: BrowserSession;
  /** The page's full URL. */
  url: string;
  config: VigieConfig;
  /** The reader's actions after the load. */
  actions?: Action[];
  /** In-site paths to go to after the load, by clicking links. */
  follow?: string[];
  /** Also list console warnings. */
  warnings?: boolean;
  /** Once the actions ran without a fault of their own, save the browser's state (cookies, storage) to this file, relative to the root. */
  saveState?: string;
  /** How long the load and the actions may take. */
  timeoutMs?: number;
  /** The output of the server the page comes from (an adapter's own server); default: the project's dev server's log. */
  serverLog?: () => string;
  /** In a context of its own rather than the warm page (a flow: what it does to cookies and storage is its own). */
  ownContext?: boolean;
}

export interface CheckedSitePage {
  findings: PageFindings;
  /** Its faults, with what its server said of a 5xx. */
  faults: PageFault[];
  /** The server errors behind a 5xx, in one line each ("/x/: Error: boom (src/x.astro:4)"). */
  serverErrors: string[];
}

/** At most this many 5xx URLs of one page are asked again for their cause. */
const MAX_CAUSES = 3;

export async function checkSitePage(site: Site, options: SitePageOptions): Promise<CheckedSitePage> {
  const own = options.ownContext || options.saveState !== undefined;
  const network = new NetworkView(options.config.network ?? "auto");
  const findings = own ? await checkInOwnContext(site, options, network) : await checkClean(site, options, network);
  // Requests to hosts this machine cannot reach are set aside (findings.unreached), not judged.
  await network.judge([findings], hostOf(options.url));
  const url = new URL(findings.url);
  const checked = { ...findings, path: `${url.pathname}${url.search}` };
  const causes = await failureCauses(site.project, url.origin, [checked], {
    log: options.serverLog ?? devLog(site.project),
    base: site.base,
    routes: site.routes,
    outDirs: builtDirs(site),
    limit: MAX_CAUSES,
    network: options.config.network,
  });
  return { findings, faults: faultsWithCauses(checked, url.origin, causes), serverErrors: causeLines(causes) };
}

/** js_errors' way: a clean page of the warm browser, faults located. */
function checkClean(site: Site, options: SitePageOptions, network: NetworkView): Promise<PageFindings> {
  const storageState = storageStateOf(site.project, options.config);
  return checkJsErrors(options.session, options.url, {
    network,
    warnings: options.warnings ?? false,
    sourceRoot: site.project.root,
    phone: checksPhone(options.config),
    ...(options.follow?.length ? { follow: options.follow } : {}),
    ...(options.actions?.length ? { actions: options.actions } : {}),
    ...(storageState ? { storageState } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
}

/** A flow's way: a context of its own, whose state is saved once the actions ran (when asked). */
async function checkInOwnContext(site: Site, options: SitePageOptions, network: NetworkView): Promise<PageFindings> {
  const root = site.project.root;
  const findings = await options.session.withPage(
    (page, context) =>
      withTimeout(
        (async () => {
          const seen = await checkPageAsSite(page, options.url, {
            read: true,
            network,
            ...(options.actions ? { actions: options.actions } : {}),
          });
          if (options.saveState && seen.actions && !seen.actions.failed) await saveState(context, join(root, options.saveState));
          return seen;
        })(),
        options.timeoutMs ?? 60_000,
        () => page.close(),
      ),
    withState(storageStateOf(site.project, options.config)),
  );
  return locateInTime(findings, root);
}
