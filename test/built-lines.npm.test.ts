// Exact lines in built code: vigie from the tarball of `npm pack` on a site made from npm
// packages (a Preact island, a script bundled into a chunk, a small script the build inlines
// into the HTML, an `is:inline` script). vigie's build for checking keeps hidden source maps
// out of the output: the output is what `astro build` alone writes, and each fault the
// production pass finds is a FAIL naming its page and its exact `src/…:line`.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { figure, initSite, seconds, validateSite } from "./support/package-checks.ts";
import { endAll, type InstalledSite, installSite, packedVigie, run, type SiteSpec } from "./support/site-install.ts";

const layout = `---
const { title } = Astro.props;
---
<html lang="en">
  <head>
    <meta charset="utf-8" /><meta name="viewport" content="width=device-width" /><link rel="icon" href="data:," />
    <title>{title}</title>
  </head>
  <body><main><h1>{title}</h1><slot /></main></body>
</html>
`;

const page = (title: string, imports: string, body: string) => `---
import Base from "../layouts/Base.astro";
${imports}
---
<Base title=${JSON.stringify(title)}>
${body}
</Base>
`;

const CLEAN: Record<string, string> = {
  "astro.config.mjs": `import preact from "@astrojs/preact";
import { defineConfig } from "astro/config";

export default defineConfig({ integrations: [preact()] });
`,
  "tsconfig.json": '{ "extends": "astro/tsconfigs/strict", "compilerOptions": { "jsx": "react-jsx", "jsxImportSource": "preact" } }\n',
  "src/layouts/Base.astro": layout,
  "src/scripts/ready.ts": `/** Runs \`work\` once the page is loaded. */
export function ready(work: () => void): void {
  if (document.readyState === "complete") work();
  else window.addEventListener("load", work, { once: true });
}
`,
  "src/components/Counter.tsx": `import { useState } from "preact/hooks";

export default function Counter() {
  const [count, setCount] = useState(0);
  return <button type="button" onClick={() => setCount(count + 1)}>Count {count}</button>;
}
`,
  "src/components/Stamp.astro": `<p id="stamp">Loaded.</p>
<script>
  import { ready } from "../scripts/ready.ts";

  ready(() => {
    document.querySelector("#stamp")?.setAttribute("data-ready", "yes");
  });
</script>
`,
  "src/pages/index.astro": page(
    "Built lines",
    'import Counter from "../components/Counter.tsx";\nimport Stamp from "../components/Stamp.astro";',
    '<p><a href="/about/">About</a></p>\n<Counter client:load />\n<Stamp />\n<script is:inline>document.documentElement.dataset.js = "yes";</script>',
  ),
  "src/pages/about.astro": page("About", "", '<p>Back <a href="/">home</a>.</p>'),
};

interface Fault {
  name: string;
  page: string;
  files: Record<string, string>;
  /** The file holding the `throw`, and the text of the error. */
  file: string;
  what: RegExp;
}

const FAULTS: Fault[] = [
  {
    name: "a Preact island that throws on mount",
    page: "/island-throws/",
    file: "src/components/IslandThrows.tsx",
    files: {
      "src/components/IslandThrows.tsx": `import { useEffect, useState } from "preact/hooks";

export default function IslandThrows() {
  const [label] = useState("Preact");
  useEffect(() => {
    const reason = \`\${label} island failed on purpose\`;
    throw new Error(reason);
  }, [label]);
  return <p>{label}</p>;
}
`,
      "src/pages/island-throws.astro": page(
        "Island throws",
        'import IslandThrows from "../components/IslandThrows.tsx";',
        "<IslandThrows client:load />",
      ),
    },
    what: /Preact island failed on purpose/,
  },
  {
    name: "a script bundled into a chunk that throws",
    page: "/bundled-throws/",
    file: "src/components/Bundled.astro",
    files: {
      // It shares ready.ts with Stamp.astro's script: the build keeps it in a chunk of its own.
      "src/components/Bundled.astro": `<p id="bundled">Bundled.</p>
<script>
  import { ready } from "../scripts/ready.ts";

  ready(() => {
    const target = document.querySelector("#bundled");
    if (target) throw new Error("bundled script failed on purpose");
  });
</script>
`,
      "src/pages/bundled-throws.astro": page(
        "Bundled throws",
        'import Bundled from "../components/Bundled.astro";\nimport Stamp from "../components/Stamp.astro";',
        "<Stamp />\n<Bundled />",
      ),
    },
    what: /bundled script failed on purpose/,
  },
  {
    name: "a small script the build inlines into the page that throws",
    page: "/inlined-throws/",
    file: "src/components/Later.astro",
    files: {
      "src/components/Later.astro": `<p>Later.</p>
<script>
  const delay = 10;
  setTimeout(() => {
    throw new Error(\`inlined script failed on purpose after \${delay} ms\`);
  }, delay);
</script>
`,
      "src/pages/inlined-throws.astro": page("Inlined throws", 'import Later from "../components/Later.astro";', "<Later />"),
    },
    what: /inlined script failed on purpose/,
  },
  {
    name: "an is:inline script that throws",
    page: "/raw-throws/",
    file: "src/components/Raw.astro",
    files: {
      "src/components/Raw.astro": `<p>Raw.</p>
<script is:inline>
  window.addEventListener("load", () => {
    throw new Error("is:inline script failed on purpose");
  });
</script>
`,
      "src/pages/raw-throws.astro": page("Raw throws", 'import Raw from "../components/Raw.astro";', "<Raw />"),
    },
    what: /is:inline script failed on purpose/,
  },
];

/** `file:line` of the `throw` in a fault's file. */
function throwLine(fault: Fault): string {
  const text = fault.files[fault.file] ?? "";
  const index = text.split("\n").findIndex((line) => /\bthrow\b/.test(line));
  return `${fault.file}:${index + 1}`;
}

const SPEC: SiteSpec = {
  name: "built-lines",
  files: CLEAN,
  dependencies: { "@astrojs/preact": "6.0.5", "@astrojs/node": "11.1.6", preact: "10.29.8", typescript: "6.0.3" },
};

/** Every file under `dir` with its bytes, relative paths sorted. */
function tree(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const path of (readdirSync(dir, { recursive: true }) as string[]).sort()) {
    const absolute = join(dir, path);
    if (statSync(absolute).isFile()) files.set(path, readFileSync(absolute));
  }
  return files;
}

/**
 * A server bundle without what every build draws anew (the manifest's key, the middleware's
 * secret): two runs of `astro build` differ there and nowhere else.
 */
const withoutSecrets = (bytes: Buffer) =>
  bytes
    .toString("latin1")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
    .replace(/"key":"[^"]+"/g, '"key":"<key>"');

/**
 * `astro build`, then vigie's build_run: the files of `dist` that differ between the two, and
 * those that differ only by a server bundle's per-build secrets; the figures printed.
 */
async function compareBuilds(site: InstalledSite, label: string): Promise<{ differing: string[]; secrets: string[] }> {
  const plain = await run("npm", ["run", "build"], { cwd: site.root, timeoutMs: 300_000 });
  assert.equal(plain.code, 0, plain.stdout + plain.stderr);
  const own = tree(join(site.root, "dist"));
  const built = await site.vigie(["build_run"], 300_000);
  const answer = JSON.parse(built.stdout) as { success: boolean; durationS: number };
  assert.equal(answer.success, true, built.stdout);
  const checked = tree(join(site.root, "dist"));
  assert.deepEqual([...checked.keys()], [...own.keys()]);
  assert.ok(![...checked.keys()].some((path) => path.endsWith(".map")));
  const changed = [...own].filter(([path, bytes]) => !checked.get(path)?.equals(bytes));
  const secrets = changed.filter(([path, bytes]) => withoutSecrets(bytes) === withoutSecrets(checked.get(path) ?? Buffer.alloc(0)));
  const maps = tree(join(site.root, ".opencode", "build", "maps"));
  assert.ok(maps.size > 0, "no map kept");
  const bytes = [...maps.values()].reduce((sum, one) => sum + one.length, 0);
  figure(
    `built-lines site (${label}): astro build ${seconds(plain.ms)}, vigie's build for checking ${answer.durationS} s, ${own.size} files, ${own.size - changed.length} identical${secrets.length ? `, ${secrets.length} differing only by per-build secrets (${secrets.map(([path]) => path).join(", ")})` : ""}; ${maps.size} maps kept, ${Math.round(bytes / 1000)} kB`,
  );
  return { differing: changed.filter((one) => !secrets.includes(one)).map(([path]) => path), secrets: secrets.map(([path]) => path) };
}

/** Each fault of `faults` is a FAIL finding on its page naming the exact line of its `throw`. */
function assertExactLines(findings: Finding[], faults: Fault[], label: string): void {
  const failing = findings.filter((finding) => finding.severity === "fail");
  const shown = JSON.stringify(failing, null, 1).slice(0, 6000);
  const missed: string[] = [];
  for (const fault of faults) {
    const expected = throwLine(fault);
    const finding = failing.find((one) => one.page === fault.page && fault.what.test(one.message));
    if (!finding) missed.push(`${fault.name}: no finding on ${fault.page}`);
    else if (finding.file !== expected) missed.push(`${fault.name}: expected ${expected}, got ${JSON.stringify(finding)}`);
    else figure(`validate (${label}), ${fault.name}: ${finding.page}: ${finding.message} [file ${finding.file}]`);
  }
  assert.deepEqual(missed, [], shown);
  // No finding on the clean pages.
  assert.deepEqual(
    failing.filter((one) => one.page === "/" || one.page === "/about/"),
    [],
    shown,
  );
}

interface Finding {
  severity: string;
  tool: string;
  page?: string;
  file?: string;
  message: string;
}

describe("exact lines in built code: the build for checking and its hidden source maps", { timeout: 1_500_000 }, () => {
  let site: InstalledSite | undefined;

  before(async () => {
    const packed = await packedVigie();
    site = await installSite(SPEC, packed.tarball, 900_000);
    figure(`built-lines site: npm install ${seconds(site.installMs)}`);
    await initSite(site);
    for (const fault of FAULTS) for (const [path, text] of Object.entries(fault.files)) site.write(path, text);
    const links = FAULTS.map((fault) => `<a href="${fault.page}">${fault.name}</a>`).join(" ");
    site.write("src/pages/about.astro", page("About", "", `<p>Back <a href="/">home</a>. ${links}</p>`));
  });

  after(() => {
    endAll();
    site?.remove();
  });

  test("the output of the build for checking is byte for byte that of astro build; the maps stay in .opencode/", async () => {
    assert.ok(site);
    const { differing, secrets } = await compareBuilds(site, "static");
    assert.deepEqual(differing, []);
    assert.deepEqual(secrets, []);
  });

  test("each production fault is a FAIL naming its page and the exact source line", async () => {
    assert.ok(site);
    const { result, report } = await validateSite(site, "faults.json");
    figure(`built-lines site (static): validate with ${FAULTS.length} faults ${seconds(result.ms)}`);
    assert.equal(report.verdict, "FAIL");
    assertExactLines(report.findings as Finding[], FAULTS, "static");
  });

  test("with the node adapter and a page rendered on demand: the same output as astro build, the same exact lines", async () => {
    assert.ok(site);
    site.write(
      "astro.config.mjs",
      `import node from "@astrojs/node";
import preact from "@astrojs/preact";
import { defineConfig } from "astro/config";

export default defineConfig({ adapter: node({ mode: "standalone" }), integrations: [preact()] });
`,
    );
    const live = FAULTS[0] as Fault;
    const onDemand: Fault = {
      ...live,
      name: "a Preact island that throws on a page rendered on demand",
      page: "/live-throws/",
      files: {
        ...live.files,
        "src/pages/live-throws.astro": page(
          "Live throws",
          'import IslandThrows from "../components/IslandThrows.tsx";\nexport const prerender = false;',
          "<IslandThrows client:load />",
        ),
      },
    };
    site.write("src/pages/live-throws.astro", onDemand.files["src/pages/live-throws.astro"] ?? "");
    const { differing, secrets } = await compareBuilds(site, "node adapter");
    assert.deepEqual(differing, []);
    assert.ok(
      secrets.every((path) => path.startsWith("server/")),
      secrets.join(", "),
    );
    const { result, report } = await validateSite(site, "faults-node.json");
    figure(`built-lines site (node adapter): validate with ${FAULTS.length + 1} faults ${seconds(result.ms)}`);
    assert.equal(report.verdict, "FAIL");
    assertExactLines(report.findings as Finding[], [...FAULTS, onDemand], "node adapter");
  });
});
