// vigie from the tarball of `npm pack` on a site with React islands made from npm packages: an
// island that inserts content after hydration (the text under it moves), and an island whose
// click handler is busy for 300 ms. `vigie validate` on the production build warns
// perf-cls-injected naming the island's component file, and gives no perf finding on the clean
// page; blog_browser_perf through the installed package's MCP server, with a click, names the
// button and the component file of the slow interaction. One install (the islands site's lock).
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { figure, initSite, seconds, validateSite } from "./support/package-checks.ts";
import { endAll, type InstalledSite, ISLANDS_DEPENDENCIES, installSite, packedVigie, type SiteSpec } from "./support/site-install.ts";

const page = (title: string, imports: string, body: string) => `---
${imports}
---
<html lang="en">
  <head><meta charset="utf-8" /><meta name="viewport" content="width=device-width" /><link rel="icon" href="data:," /><title>${title}</title></head>
  <body><main><h1>${title}</h1>
${body}
  </main></body>
</html>
`;

const TEXT = "<p>A paragraph of the page under the island, long enough to be seen when it moves down.</p>".repeat(8);

const FILES: Record<string, string> = {
  "astro.config.mjs": `import react from "@astrojs/react";
import { defineConfig } from "astro/config";

export default defineConfig({ integrations: [react()] });
`,
  "tsconfig.json": '{ "extends": "astro/tsconfigs/strict", "compilerOptions": { "jsx": "react-jsx", "jsxImportSource": "react" } }\n',
  "src/components/Offer.tsx": `import { useEffect, useState } from "react";

export default function Offer() {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setShown(true), 300);
    return () => clearTimeout(timer);
  }, []);
  return shown ? <div style={{ height: "240px", background: "#eee" }}>A late offer, inserted after hydration</div> : null;
}
`,
  "src/components/BusyButton.tsx": `import { useState } from "react";

export default function BusyButton() {
  const [count, setCount] = useState(0);
  const onClick = () => {
    const end = performance.now() + 300;
    while (performance.now() < end) {}
    setCount(count + 1);
  };
  return <button type="button" onClick={onClick}>Busy {count}</button>;
}
`,
  "src/pages/index.astro": page("Clean", "", `<p>Nothing here moves or waits.</p>\n${TEXT}`),
  "src/pages/injected.astro": page("Injected", 'import Offer from "../components/Offer.tsx";', `<Offer client:load />\n${TEXT}`),
  "src/pages/busy.astro": page(
    "Busy",
    'import BusyButton from "../components/BusyButton.tsx";',
    "<BusyButton client:load />\n<p>Click it.</p>",
  ),
};

/** The islands site's packages (its pinned lock), with these files. */
const SPEC: SiteSpec = {
  name: "islands",
  files: FILES,
  dependencies: ISLANDS_DEPENDENCIES,
};

describe("perf causes of islands, with vigie from npm", { timeout: 1_500_000 }, () => {
  let site: InstalledSite | undefined;

  before(async () => {
    const packed = await packedVigie();
    site = await installSite(SPEC, packed.tarball, 900_000);
    figure(`perf islands site: npm install ${seconds(site.installMs)}`);
    await initSite(site);
    const config = JSON.parse(site.read("vigie.config.json")) as Record<string, unknown>;
    const perf = { budgets: { loadMs: 10_000 }, perfRoutes: ["/", "/injected/"], checks: { a11y: false } };
    site.write("vigie.config.json", `${JSON.stringify({ ...config, ...perf }, null, 2)}\n`);
  });

  after(() => {
    endAll();
    site?.remove();
  });

  test("validate: the island that inserted content is named with its file; the clean page has no perf finding", async () => {
    const live = site as InstalledSite;
    const started = Date.now();
    const { report, result } = await validateSite(live, "perf-report.json");
    figure(`perf islands: validate ${seconds(Date.now() - started)}`);
    const perfFindings = report.findings.filter((finding) => finding.rule?.startsWith("perf-"));
    const shown = `${JSON.stringify(perfFindings)}\n${result.stdout.slice(-1500)}`;
    assert.deepEqual(
      perfFindings.filter((finding) => finding.page === "/"),
      [],
      shown,
    );
    const injected = perfFindings.find((finding) => finding.page === "/injected/" && finding.rule === "perf-cls-injected");
    assert.ok(injected, shown);
    assert.match(injected.message, /island Offer/);
    assert.match(injected.target ?? "", /astro-island/);
    assert.match(injected.file ?? "", /^src\/components\/Offer\.tsx/, shown);
    assert.equal(injected.severity, "warn");
  });

  test("blog_browser_perf with a click: the slow interaction's button and component file, in a small answer", async () => {
    const live = site as InstalledSite;
    // The build validate made (the build for checking) is served.
    const transport = new StdioClientTransport({
      command: join(live.root, "node_modules", ".bin", "vigie"),
      args: ["mcp"],
      cwd: live.root,
      stderr: "ignore",
      env: { ...process.env, PATH: `${join(live.root, "node_modules", ".bin")}:${process.env.PATH}` } as Record<string, string>,
    });
    const client = new Client({ name: "perf-islands-test", version: "0.0.0" });
    await client.connect(transport);
    try {
      const tools = await client.listTools();
      const prefix = (tools.tools.find((tool) => tool.name.endsWith("_browser_perf"))?.name ?? "").replace(/_browser_perf$/, "");
      const start = (await client.callTool({ name: `${prefix}_dev_start`, arguments: { mode: "preview" } }, undefined, {
        timeout: 300_000,
      })) as {
        content: { text: string }[];
      };
      assert.doesNotMatch(start.content[0]?.text ?? "", /"error"/, start.content[0]?.text);
      const started = Date.now();
      const answer = (await client.callTool(
        { name: `${prefix}_browser_perf`, arguments: { path: "/busy/", actions: [{ click: "button Busy" }] } },
        undefined,
        { timeout: 300_000 },
      )) as { content: { text: string }[] };
      const text = answer.content.map((part) => part.text).join("\n");
      figure(`perf islands: browser_perf with a click ${seconds(Date.now() - started)}, ${Buffer.byteLength(text)} B`);
      assert.ok(Buffer.byteLength(text) <= 2048, text);
      assert.match(text, /perf-inp-slow/, text);
      assert.match(text, /button/, text);
      assert.match(text, /src\/components\/BusyButton\.tsx/, text);
      await client.callTool({ name: `${prefix}_dev_stop`, arguments: {} }, undefined, { timeout: 60_000 }).catch(() => undefined);
    } finally {
      await client.close().catch(() => undefined);
      const pid = transport.pid;
      if (pid) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // ended
        }
      }
    }
  });
});
