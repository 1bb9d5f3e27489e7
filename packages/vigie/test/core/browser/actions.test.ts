// A reader's actions in one check, on small hand-written pages in a real Chromium: steps are
// checked strictly (what was wrong, what is accepted), targets are found by role and name, by
// text or by CSS, each fault is given the step after which it came, a step whose target is
// not there ends the run at once with the page's controls, and a saved login is used.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ACTIONS_ACCEPTED, parseActions } from "../../../src/core/actions.ts";
import { VigieError } from "../../../src/core/answer.ts";
import { readSite } from "../../../src/core/astro/site.ts";
import { checkJsErrors } from "../../../src/core/browser/load/jsErrors.ts";
import { pageFaults } from "../../../src/core/browser/page/faults.ts";
import { faultText } from "../../../src/core/browser/page/faultView.ts";
import { saveState, withState } from "../../../src/core/browser/page/state.ts";
import { checkPage } from "../../../src/core/browser/page/watch.ts";
import { BrowserSession } from "../../../src/core/browser/session/session.ts";
import { loadConfig } from "../../../src/core/config.ts";
import { projectAt } from "../../../src/core/project.ts";
import type { ValidateContext } from "../../../src/core/validate/steps/context.ts";
import { flowsStep } from "../../../src/core/validate/steps/flows.ts";
import { html, type PageServer, startPageServer } from "../../support/pages.ts";

describe("parseActions", () => {
  test("accepts one verb per step, with its value or key", () => {
    assert.deepEqual(
      parseActions([
        { click: "button Next" },
        { fill: "textbox Search", value: "astro" },
        { press: "Enter" },
        { press: "ArrowRight", on: "tab Deux" },
        { waitFor: "text=Results" },
        { select: "#lang", value: "en" },
      ]),
      [
        { verb: "click", target: "button Next" },
        { verb: "fill", target: "textbox Search", value: "astro" },
        { verb: "press", value: "Enter" },
        { verb: "press", value: "ArrowRight", target: "tab Deux" },
        { verb: "waitFor", target: "text=Results" },
        { verb: "select", target: "#lang", value: "en" },
      ],
    );
  });

  const refused: [unknown, RegExp][] = [
    [{ click: "a" }, /must be a list/],
    [["click"], /actions\[0\]: a step is an object/],
    [[{ tap: "button A" }], /actions\[0\]: no verb \(unknown: tap\); verbs: click, hover/],
    [[{ click: "button A", hover: "link B" }], /one verb per step, got click and hover/],
    [[{ click: "" }], /click takes a non-empty string/],
    [[{ click: "button A", value: "x" }], /click takes its target only, got also value/],
    [[{ press: "Enter" }, { fill: "textbox Search" }], /actions\[1\]: fill needs "value"/],
    [[{ press: "Enter", value: "x" }], /press takes only "on"/],
  ];
  for (const [steps, message] of refused) {
    test(`refuses ${JSON.stringify(steps)}`, () => {
      assert.throws(
        () => parseActions(steps),
        (error: unknown) => error instanceof VigieError && message.test(error.message) && error.hint === ACTIONS_ACCEPTED,
      );
    });
  }
});

describe("flows and storageState in vigie.config.json", () => {
  const configError = (config: object): string | undefined => {
    const root = mkdtempSync(join(tmpdir(), "vigie-flows-"));
    try {
      writeFileSync(join(root, "package.json"), "{}");
      writeFileSync(join(root, "vigie.config.json"), JSON.stringify(config));
      loadConfig(projectAt(root));
      return undefined;
    } catch (error) {
      const { message, hint } = error as VigieError;
      return `${message} | ${hint}`;
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  };
  const search = { name: "search", page: "/", steps: [{ click: "button Search" }, { fill: "textbox Search", value: "astro" }] };

  test("a flow and a saved login are accepted", () => {
    assert.equal(
      configError({ flows: [{ ...search, saveState: ".opencode/state.json" }], storageState: ".opencode/state.json" }),
      undefined,
    );
  });

  test("a bad flow is an error naming the field and what is accepted", () => {
    assert.match(
      configError({ flows: [{ ...search, steps: [{ click: "button A" }, { tap: "x" }] }] }) ?? "",
      /flows\.0\.steps: steps\[1\]: no verb \(unknown: tap\).*\| .*A flow is \{"name", "page", "steps"/,
    );
    assert.match(configError({ flows: [{ ...search, steps: [] }] }) ?? "", /flows\.0\.steps: a flow has at least one step/);
    assert.match(configError({ flows: [{ ...search, page: "home" }] }) ?? "", /flows\.0\.page: page is a site path/);
    assert.match(configError({ flows: [search, search] }) ?? "", /flows: two flows have the same name/);
    assert.match(
      configError({ flows: [{ ...search, saveState: "state.json" }] }) ?? "",
      /flows\.0\.saveState: a file \.opencode\/state\*\.json \(git-ignored\)/,
    );
    assert.match(configError({ storageState: "/tmp/login.json" }) ?? "", /storageState: a file \.opencode\/state\*\.json/);
  });
});

describe("actions on a page", () => {
  const session = new BrowserSession({ idleMs: 5_000 });
  let server: PageServer;
  let dir: string;

  before(async () => {
    server = await startPageServer();
    dir = mkdtempSync(join(tmpdir(), "vigie-actions-"));
    server.routes.set("/counter/", {
      body: html(`<button id="more">More</button><output>0</output><a href="/other/">Other page</a>
<label>Search <input type="search" id="q"></label>
<script src="/counter.js"></script>`),
    });
    server.routes.set("/counter.js", {
      type: "text/javascript",
      body: `let clicks = 0;
document.getElementById("more").addEventListener("click", () => {
  clicks += 1;
  document.querySelector("output").textContent = String(clicks);
  if (clicks === 3) throw new Error("the counter broke at 3");
});
document.getElementById("q").addEventListener("keydown", (event) => {
  if (event.key === "Enter") fetch("/search-api/?q=" + encodeURIComponent(event.target.value));
});`,
    });
    server.routes.set("/other/", { body: html("<p>Other</p>") });
    // A stand-in for a built island: a hashed chunk whose click handler throws on the third click.
    server.routes.set("/island/", {
      body: html(`<script>
customElements.define("astro-island", class extends HTMLElement {
  async connectedCallback() {
    const module = await import(this.getAttribute("component-url"));
    module.default(this);
    this.removeAttribute("ssr");
  }
});
</script><astro-island uid="1" component-url="/_astro/ClickCounter.Ab12Cd34.js" component-export="default" renderer-url="/_astro/client.Xy98Zw76.js" props="{}" ssr client="load" opts='{"name":"ClickCounter","value":""}'><button>Clicks 0</button></astro-island>`),
    });
    server.routes.set("/_astro/ClickCounter.Ab12Cd34.js", {
      type: "text/javascript",
      body: `export default function (host) {
  let count = 0;
  const button = host.querySelector("button");
  button.addEventListener("click", () => {
    if (count + 1 === 3) throw new Error("counter failed on the third click");
    count += 1;
    button.textContent = "Clicks " + count;
  });
}`,
    });
    server.routes.set("/login/", {
      body: html(`<button onclick="document.cookie='session=ok; path=/'; document.body.dataset.in = 'yes'">Log in</button>`),
    });
  });

  after(async () => {
    await session.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("an error is given the step after which it came, and its source", async () => {
    const actions = parseActions([{ click: "button More" }, { click: "button More" }, { click: "css=#more" }, { click: "button More" }]);
    const findings = await checkJsErrors(session, `${server.url}/counter/`, { actions });
    assert.deepEqual(findings.actions, { ran: 4, of: 4 });
    assert.equal(findings.errors.length, 1, JSON.stringify(findings.errors));
    const [error] = findings.errors;
    assert.equal(error?.afterStep, 3);
    assert.match(error?.message ?? "", /the counter broke at 3/);
    assert.match(error?.at ?? "", /\/counter\.js:5/);
    assert.match(faultText(pageFaults(findings)[0] as never), /^after step 3: Uncaught the counter broke at 3/);
  });

  test("a failed request after a step says which step", async () => {
    const actions = parseActions([{ fill: "searchbox Search", value: "astro" }, { press: "Enter" }]);
    const findings = await checkJsErrors(session, `${server.url}/counter/`, { actions });
    assert.deepEqual(findings.actions, { ran: 2, of: 2 });
    const failed = findings.failedRequests.find((request) => request.url.includes("/search-api/"));
    assert.equal(failed?.status, 404);
    assert.equal(failed?.afterStep, 2);
  });

  test("a step whose target is not there stops at once, with the page's controls", async () => {
    const started = Date.now();
    const actions = parseActions([{ click: "button More" }, { click: "button Next page" }, { click: "button More" }]);
    const findings = await checkJsErrors(session, `${server.url}/counter/`, { actions });
    const failed = findings.actions?.failed;
    assert.equal(findings.actions?.ran, 1);
    assert.equal(failed?.step, 2);
    assert.equal(failed?.action, 'click "button Next page"');
    assert.match(failed?.reason ?? "", /nothing on the page matches it/);
    assert.ok(failed?.candidates?.includes("button More"), JSON.stringify(failed));
    assert.ok(failed?.candidates?.includes("link Other page"), JSON.stringify(failed));
    assert.ok(
      failed?.candidates?.some((name) => name.startsWith("searchbox Search")),
      JSON.stringify(failed),
    );
    // The step's short wait, not a long timeout (a generous bound: the machine is shared).
    assert.ok(Date.now() - started < 20_000);
    assert.ok(pageFaults(findings).some((fault) => fault.kind === "action" && /step 2 click "button Next page"/.test(fault.message)));
  });

  test("validate's flows: a finding of its own, with the step and the island's candidate sources", async () => {
    const root = join(dir, "site");
    mkdirSync(join(root, "src", "components"), { recursive: true });
    writeFileSync(join(root, "package.json"), "{}");
    writeFileSync(join(root, "src", "components", "ClickCounter.tsx"), "export default function ClickCounter() {}\n");
    const click = { verb: "click" as const, target: "button Clicks" };
    const ctx = {
      project: projectAt(root),
      site: readSite(projectAt(root)),
      config: { flows: [{ name: "counter", page: "/island/", steps: [click, click, click] }] },
      options: { session, baseUrl: server.url },
      tool: (id: string) => `blog_${id}`,
    } as unknown as ValidateContext;
    assert.equal(flowsStep.skip(ctx), undefined);
    const outcome = await flowsStep.run(ctx);
    assert.equal(outcome.status, "fail");
    assert.match(outcome.summary, /^counter \(\/island\/\): 3\/3 steps, 1 fault$/);
    const [finding] = outcome.findings ?? [];
    assert.equal(finding?.tool, "blog_browser_js_errors");
    assert.equal(finding?.rule, "flow:counter");
    assert.match(
      finding?.message ?? "",
      /^flow "counter": after step 3 \(click "button Clicks"\): island ClickCounter: Uncaught counter failed on the third click .*candidates: src\/components\/ClickCounter\.tsx/,
    );
    assert.match(finding?.fix ?? "", /blog_browser_js_errors with path "\/island\/" and actions \[\{"click":"button Clicks"\}/);
  });

  test("follow goes to the link's page; a saved login is written and used", async () => {
    const followed = await checkJsErrors(session, `${server.url}/counter/`, { actions: parseActions([{ follow: "link Other page" }]) });
    assert.deepEqual(followed.actions, { ran: 1, of: 1 });
    const file = join(dir, "state.json");
    await session.withPage(async (page, context) => {
      const seen = await checkPage(page, `${server.url}/login/`, { actions: parseActions([{ click: "text=Log in" }]) });
      assert.deepEqual(seen.actions, { ran: 1, of: 1 });
      await saveState(context, file);
    });
    assert.ok(existsSync(file));
    assert.match(readFileSync(file, "utf8"), /"session"/);
    const cookie = await session.withPage(async (page) => {
      await page.goto(`${server.url}/other/`);
      return page.evaluate(() => document.cookie);
    }, withState(file));
    assert.equal(cookie, "session=ok");
    assert.deepEqual(withState(join(dir, "none.json")), {});
  });
});
