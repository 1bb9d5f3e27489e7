// The flows of vigie.config.json: on one page each, a reader's actions (open the search, type,
// press Enter), run once the crawl is done, on the same server. Each flow is a source of
// findings of its own (rule `flow:<name>`), every fault named with the step after which it
// came; a flow may save the login it made (saveState) for the checks that follow.
import { actionLabel } from "../../actions.ts";
import { clip } from "../../answer.ts";
import { faultMessage, sourceOf } from "../../browser/page/faultView.ts";
import { type CheckedSitePage, checkSitePage } from "../../checks/page.ts";
import type { Flow } from "../../config.ts";
import { firstShard, givenUrl, productionServer, type Step, type ValidateContext } from "./context.ts";
import { pagesUrlOf } from "./crawl.ts";
import type { Finding } from "./findings.ts";

/** How long one flow may take, load and steps included. */
const FLOW_TIMEOUT_MS = 60_000;

async function runFlow(ctx: ValidateContext, url: string, flow: Flow): Promise<CheckedSitePage> {
  const production = await productionServer(ctx);
  return checkSitePage(ctx.site, {
    session: ctx.options.session,
    url: `${url}${flow.page}`,
    config: ctx.config,
    actions: flow.steps,
    ownContext: true,
    ...(flow.saveState ? { saveState: flow.saveState } : {}),
    timeoutMs: FLOW_TIMEOUT_MS,
    ...(production?.log ? { serverLog: production.log } : {}),
  });
}

/** The call that reproduces a flow, for a finding's fix. */
function reproduce(ctx: ValidateContext, flow: Flow): string {
  const steps = flow.steps.map((step) => ({
    [step.verb]: step.verb === "press" ? step.value : step.target,
    ...(step.verb !== "press" && step.value !== undefined ? { value: step.value } : {}),
    ...(step.verb === "press" && step.target ? { on: step.target } : {}),
  }));
  return `${ctx.tool("browser_js_errors")} with path "${flow.page}" and actions ${clip(JSON.stringify(steps), 300)}`;
}

function flowFindings(ctx: ValidateContext, flow: Flow, { faults }: CheckedSitePage): Finding[] {
  const tool = ctx.tool("browser_js_errors");
  return faults.map((fault): Finding => {
    const source = sourceOf(fault);
    const action = fault.afterStep ? flow.steps[fault.afterStep - 1] : undefined;
    const after = action ? `after step ${fault.afterStep} (${actionLabel(action)}): ` : "";
    return {
      severity: fault.unsure ? "warn" : "fail",
      tool,
      rule: `flow:${flow.name}`,
      page: flow.page,
      ...(source ? { file: source } : {}),
      ...(fault.viewport ? { viewport: fault.viewport } : {}),
      // As the crawl says it: an island's fault whose file is not known names the candidates.
      message: `flow "${flow.name}": ${after}${faultMessage(fault, 400, false)}`,
      fix:
        fault.kind === "action"
          ? `Correct the step in vigie.config.json's flow "${flow.name}" (the page's controls are listed), or fix the page; then run ${reproduce(ctx, flow)}.`
          : `${source ? `Fix the cause at ${source}` : "Find the cause"} and check with ${reproduce(ctx, flow)}.`,
    };
  });
}

export const flowsStep: Step = {
  name: "flows",
  tool: "browser_js_errors",
  after: ["crawl"],
  skip(ctx) {
    if (!ctx.config.flows?.length) return "no flows in vigie.config.json";
    if (!givenUrl(ctx) && !productionServer(ctx) && !ctx.dev?.url) return "no server and no build to look at";
    return firstShard(ctx) ? undefined : "not this shard";
  },
  async run(ctx) {
    const url = (await pagesUrlOf(ctx)) as string;
    const findings: Finding[] = [];
    const lines: string[] = [];
    for (const flow of ctx.config.flows ?? []) {
      const seen = await runFlow(ctx, url, flow).catch((error: Error) => error);
      if (seen instanceof Error) {
        const message = `flow "${flow.name}" could not run: ${clip(seen.message.split("\n")[0] ?? "failed", 200)}`;
        findings.push({
          severity: "fail",
          tool: ctx.tool("browser_js_errors"),
          rule: `flow:${flow.name}`,
          page: flow.page,
          message,
          fix: `Run ${reproduce(ctx, flow)} to see why.`,
        });
        lines.push(`${flow.name} could not run`);
        continue;
      }
      const found = flowFindings(ctx, flow, seen);
      findings.push(...found);
      const ran = seen.findings.actions ? `${seen.findings.actions.ran}/${seen.findings.actions.of} steps` : "not run";
      lines.push(`${flow.name} (${flow.page}): ${ran}, ${found.length ? `${found.length} fault${found.length > 1 ? "s" : ""}` : "clean"}`);
    }
    const status = findings.some((finding) => finding.severity === "fail") ? "fail" : findings.length ? "warn" : "ok";
    return { status, summary: lines.join("; "), findings };
  },
};
