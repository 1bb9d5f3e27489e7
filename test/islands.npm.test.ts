// vigie from the tarball of `npm pack` on a site with islands, made from npm packages only:
// React, Preact, Solid, Vue and Svelte islands (the JSX ones each in their folder, as Astro's
// docs have it), a `client:media` island shown on narrow screens, and `<ClientRouter />`.
// Clean, `npx vigie validate` has no FAIL; then each fault on a page of its own (an island of
// each framework that throws on mount, a hydration mismatch alone and among several islands, a
// client:visible island below the fold that throws, a client:media island that throws only on
// narrow screens, a script that throws only after a navigation, a minified inline script that
// throws), and validate (the production pass) is a FAIL naming each page and its source file
// (and the phone, for the narrow one); js_errors on the dev server names them too. One
// install; the figures are printed.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { figure, initSite, seconds, validateSite } from "./support/package-checks.ts";
import { endAll, type InstalledSite, ISLANDS_DEPENDENCIES, installSite, packedVigie, type SiteSpec } from "./support/site-install.ts";

const layout = `---
import { ClientRouter } from "astro:transitions";
const { title } = Astro.props;
---
<html lang="en">
  <head>
    <meta charset="utf-8" /><meta name="viewport" content="width=device-width" /><link rel="icon" href="data:," />
    <title>{title}</title>
    <ClientRouter />
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
import react from "@astrojs/react";
import solid from "@astrojs/solid-js";
import svelte from "@astrojs/svelte";
import vue from "@astrojs/vue";
import { defineConfig } from "astro/config";

export default defineConfig({
  integrations: [
    preact({ include: ["**/preact/*"] }),
    react({ include: ["**/react/*"] }),
    solid({ include: ["**/solid/*"] }),
    vue(),
    svelte(),
  ],
});
`,
  "tsconfig.json": '{ "extends": "astro/tsconfigs/strict", "compilerOptions": { "jsx": "react-jsx", "jsxImportSource": "react" } }\n',
  "src/layouts/Base.astro": layout,
  "src/components/react/Counter.tsx": `import { useState } from "react";

export default function Counter() {
  const [count, setCount] = useState(0);
  return <button type="button" onClick={() => setCount(count + 1)}>React count {count}</button>;
}
`,
  "src/components/Greeting.vue": `<script setup>
import { ref } from "vue";
const name = ref("Vue");
</script>
<template><p>Hello from {{ name }}</p></template>
`,
  "src/components/Toggle.svelte": `<script>
  let on = $state(false);
</script>
<button type="button" onclick={() => (on = !on)}>Svelte {on ? "on" : "off"}</button>
`,
  "src/components/preact/Badge.tsx": `/** @jsxImportSource preact */
import { useState } from "preact/hooks";

export default function Badge() {
  const [seen, setSeen] = useState(false);
  return <button type="button" onClick={() => setSeen(true)}>Preact {seen ? "seen" : "new"}</button>;
}
`,
  "src/components/solid/Menu.tsx": `/** @jsxImportSource solid-js */
import { createSignal } from "solid-js";

export default function Menu() {
  const [open, setOpen] = createSignal(false);
  return <button type="button" onClick={() => setOpen(!open())}>Menu {open() ? "open" : "closed"}</button>;
}
`,
  "src/pages/index.astro": page(
    "Islands",
    'import Counter from "../components/react/Counter.tsx";\nimport Badge from "../components/preact/Badge.tsx";\nimport Menu from "../components/solid/Menu.tsx";\nimport Greeting from "../components/Greeting.vue";\nimport Toggle from "../components/Toggle.svelte";',
    '<p><a href="/about/">About</a></p>\n<Menu client:media="(max-width: 640px)" />\n<Counter client:load />\n<Badge client:idle />\n<Greeting client:idle />\n<div style="height: 2500px">A long page.</div>\n<Toggle client:visible />',
  ),
  "src/pages/about.astro": page("About", "", '<p>Back <a href="/">home</a>.</p>'),
};

interface Fault {
  name: string;
  page: string;
  files: Record<string, string>;
  /** What the finding must say, and the source file it must name. */
  what: RegExp;
  file: RegExp;
  /** Seen only on a phone: the viewport the finding must name. */
  viewport?: string;
}

const FAULTS: Fault[] = [
  {
    name: "a React island that throws on mount",
    page: "/react-throws/",
    files: {
      "src/components/react/ReactThrows.tsx": `import { useEffect } from "react";

export default function ReactThrows() {
  useEffect(() => {
    throw new Error("react island failed on purpose");
  }, []);
  return <p>React</p>;
}
`,
      "src/pages/react-throws.astro": page(
        "React throws",
        'import ReactThrows from "../components/react/ReactThrows.tsx";',
        "<ReactThrows client:load />",
      ),
    },
    what: /react island failed on purpose/,
    file: /src\/components\/react\/ReactThrows\.tsx/,
  },
  {
    name: "a Vue island that throws on mount",
    page: "/vue-throws/",
    files: {
      "src/components/VueThrows.vue": `<script setup>
import { onMounted } from "vue";
onMounted(() => {
  throw new Error("vue island failed on purpose");
});
</script>
<template><p>Vue</p></template>
`,
      "src/pages/vue-throws.astro": page("Vue throws", 'import VueThrows from "../components/VueThrows.vue";', "<VueThrows client:load />"),
    },
    what: /vue island failed on purpose/,
    file: /src\/components\/VueThrows\.vue/,
  },
  {
    name: "a Svelte island that throws on mount",
    page: "/svelte-throws/",
    files: {
      "src/components/SvelteThrows.svelte": `<script>
  import { onMount } from "svelte";
  onMount(() => {
    throw new Error("svelte island failed on purpose");
  });
</script>
<p>Svelte</p>
`,
      "src/pages/svelte-throws.astro": page(
        "Svelte throws",
        'import SvelteThrows from "../components/SvelteThrows.svelte";',
        "<SvelteThrows client:load />",
      ),
    },
    what: /svelte island failed on purpose/,
    file: /src\/components\/SvelteThrows\.svelte/,
  },
  {
    name: "a hydration mismatch",
    page: "/mismatch/",
    files: {
      "src/components/react/Mismatch.tsx": `export default function Mismatch() {
  return <p>{typeof window === "undefined" ? "rendered on the server" : "rendered in the browser"}</p>;
}
`,
      "src/pages/mismatch.astro": page("Mismatch", 'import Mismatch from "../components/react/Mismatch.tsx";', "<Mismatch client:load />"),
    },
    what: /[Hh]ydrat/,
    file: /src\/components\/react\/Mismatch\.tsx/,
  },
  {
    name: "a hydration mismatch on a page with several islands",
    page: "/mismatch-among/",
    files: {
      "src/components/VueMismatch.vue": `<script setup>
const where = typeof window === "undefined" ? "the server" : "the browser";
</script>
<template><p>Rendered in {{ where }}</p></template>
`,
      "src/pages/mismatch-among.astro": page(
        "Mismatch among islands",
        'import Counter from "../components/react/Counter.tsx";\nimport Badge from "../components/preact/Badge.tsx";\nimport Greeting from "../components/Greeting.vue";\nimport VueMismatch from "../components/VueMismatch.vue";',
        "<Counter client:load />\n<Greeting client:load />\n<VueMismatch client:load />\n<Badge client:load />",
      ),
    },
    what: /island VueMismatch: .*[Hh]ydrat/,
    file: /src\/components\/VueMismatch\.vue/,
  },
  {
    name: "a client:media island that throws only on narrow screens",
    page: "/narrow-throws/",
    files: {
      "src/components/solid/NarrowMenu.tsx": `/** @jsxImportSource solid-js */
import { onMount } from "solid-js";

export default function NarrowMenu() {
  onMount(() => {
    throw new Error("narrow island failed on purpose");
  });
  return <nav>Narrow menu</nav>;
}
`,
      "src/pages/narrow-throws.astro": page(
        "Narrow throws",
        'import Counter from "../components/react/Counter.tsx";\nimport NarrowMenu from "../components/solid/NarrowMenu.tsx";',
        '<Counter client:load />\n<NarrowMenu client:media="(max-width: 640px)" />',
      ),
    },
    what: /\(phone 390×844\) .*narrow island failed on purpose/,
    file: /src\/components\/solid\/NarrowMenu\.tsx/,
    viewport: "phone 390×844",
  },
  {
    name: "a client:visible island below the fold that throws",
    page: "/visible-throws/",
    files: {
      "src/components/react/Below.tsx": `import { useEffect } from "react";

export default function Below() {
  useEffect(() => {
    throw new Error("below the fold island failed on purpose");
  }, []);
  return <p>Below the fold</p>;
}
`,
      "src/pages/visible-throws.astro": page(
        "Visible throws",
        'import Below from "../components/react/Below.tsx";',
        '<div style="height: 3000px">A long page.</div>\n<Below client:visible />',
      ),
    },
    what: /below the fold island failed on purpose/,
    file: /src\/components\/react\/Below\.tsx/,
  },
  {
    name: "a script that throws only after a navigation",
    page: "/nav-from/",
    files: {
      "src/components/AfterSwap.astro": `<p>Navigations are watched.</p>
<script>
  document.addEventListener("astro:after-swap", () => {
    throw new Error("after navigation failed on purpose");
  });
</script>
`,
      "src/pages/nav-from.astro": page(
        "Nav from",
        'import AfterSwap from "../components/AfterSwap.astro";',
        '<p><a href="/about/">About</a></p>\n<AfterSwap />',
      ),
    },
    what: /after \/nav-from\/ → \/about\/.*after navigation failed on purpose/,
    file: /src\/components\/AfterSwap\.astro/,
  },
  {
    name: "a minified inline script that throws",
    page: "/inline-throws/",
    files: {
      "src/components/Later.astro": `<p>Later.</p>
<script>
  setTimeout(() => {
    throw new Error('inlined script failed on purpose');
  });
</script>
`,
      "src/pages/inline-throws.astro": page("Inline throws", 'import Later from "../components/Later.astro";', "<Later />"),
    },
    what: /inlined script failed on purpose/,
    file: /src\/components\/Later\.astro/,
  },
];

/** A counter island whose click handler throws on the third click: only a reader's actions find it. */
const CLICK_THROWS: Record<string, string> = {
  "src/components/react/ClickCounter.tsx": `import { useState } from "react";

export default function ClickCounter() {
  const [count, setCount] = useState(0);
  const click = () => {
    if (count + 1 === 3) throw new Error("counter failed on the third click");
    setCount(count + 1);
  };
  return <button type="button" onClick={click}>Clicks {count}</button>;
}
`,
  "src/pages/click-throws.astro": page(
    "Click throws",
    'import ClickCounter from "../components/react/ClickCounter.tsx";',
    "<ClickCounter client:load />",
  ),
};
const THREE_CLICKS = [{ click: "button Clicks" }, { click: "button Clicks" }, { click: "button Clicks" }];

const SPEC: SiteSpec = {
  name: "islands",
  files: CLEAN,
  dependencies: ISLANDS_DEPENDENCIES,
};

interface Finding {
  severity: string;
  tool: string;
  rule?: string;
  page?: string;
  file?: string;
  viewport?: string;
  message: string;
}

describe("the vigie package on a site with React, Preact, Solid, Vue and Svelte islands and <ClientRouter />", {
  timeout: 1_500_000,
}, () => {
  let site: InstalledSite | undefined;

  before(async () => {
    const packed = await packedVigie();
    site = await installSite(SPEC, packed.tarball, 900_000);
    figure(`islands site: npm install ${seconds(site.installMs)}`);
    await initSite(site);
    const config = JSON.parse(site.read("vigie.config.json")) as Record<string, unknown>;
    site.write("vigie.config.json", `${JSON.stringify({ ...config, budgets: { loadMs: 5000 } }, null, 2)}\n`);
  });

  after(() => {
    endAll();
    site?.remove();
  });

  test("clean: validate has no FAIL, its islands checked (on a phone where one shows only there)", async () => {
    assert.ok(site);
    const { result, report } = await validateSite(site, "clean.json");
    figure(`islands site: clean validate ${seconds(result.ms)}, ${report.verdict}`);
    figure(`islands site: clean crawl: ${report.steps?.find((step) => step.name === "crawl")?.summary}`);
    const shown = `${JSON.stringify(report.findings).slice(0, 3000)}\n${result.stdout.slice(-2000)}`;
    assert.ok(report.verdict === "PASS" || report.verdict === "WARN", shown);
    assert.deepEqual(
      (report.findings as Finding[]).filter((finding) => finding.severity === "fail"),
      [],
      shown,
    );
  });

  test("each fault on a page of its own: validate's production pass names the page and the source file", async () => {
    assert.ok(site);
    for (const fault of FAULTS) for (const [path, text] of Object.entries(fault.files)) site.write(path, text);
    for (const [path, text] of Object.entries(CLICK_THROWS)) site.write(path, text);
    const config = JSON.parse(site.read("vigie.config.json")) as Record<string, unknown>;
    const flows = [{ name: "counter", page: "/click-throws/", steps: THREE_CLICKS }];
    site.write("vigie.config.json", `${JSON.stringify({ ...config, flows }, null, 2)}\n`);
    const links = FAULTS.map((fault) => `<a href="${fault.page}">${fault.name}</a>`).join(" ");
    site.write("src/pages/about.astro", page("About", "", `<p>Back <a href="/">home</a>. ${links}</p>`));
    const { result, report } = await validateSite(site, "faults.json");
    figure(`islands site: validate with ${FAULTS.length} faults ${seconds(result.ms)}`);
    figure(`islands site: crawl with faults: ${report.steps?.find((step) => step.name === "crawl")?.summary}`);
    const failing = (report.findings as Finding[]).filter((finding) => finding.severity === "fail");
    const shown = JSON.stringify(failing, null, 1).slice(0, 6000);
    assert.equal(report.verdict, "FAIL", shown);
    const missed: string[] = [];
    for (const fault of FAULTS) {
      const finding = failing.find((one) => one.page === fault.page && fault.what.test(one.message));
      if (!finding) missed.push(`${fault.name}: no finding on ${fault.page}`);
      else if (!fault.file.test(`${finding.file ?? ""} ${finding.message}`)) missed.push(`${fault.name}: ${JSON.stringify(finding)}`);
      else if (fault.viewport && finding.viewport !== fault.viewport) missed.push(`${fault.name}: no viewport: ${JSON.stringify(finding)}`);
      else figure(`validate, ${fault.name}: ${finding.page}: ${finding.message}${finding.file ? ` [file ${finding.file}]` : ""}`);
    }
    assert.deepEqual(missed, [], shown);
    // The flow: a finding of its own, naming the step after which the island threw and its file.
    const flow = failing.find((one) => one.rule === "flow:counter");
    assert.equal(flow?.tool, "blog_browser_js_errors", shown);
    assert.match(flow?.message ?? "", /after step 3 \(click "button Clicks"\): .*counter failed on the third click/, shown);
    assert.match(`${flow?.file ?? ""} ${flow?.message}`, /src\/components\/react\/ClickCounter\.tsx/, shown);
    figure(`validate, flow "counter": ${flow?.message} [file ${flow?.file}]`);
    assert.ok(report.steps?.some((step) => step.name === "flows" && /counter .*3\/3 steps/.test(step.summary)));
  });

  test("each fault through js_errors on the dev server: the page's answer names the source file", async () => {
    assert.ok(site);
    const started = await site.vigie(["dev_start"], 180_000);
    assert.equal(started.code, 0, started.stdout + started.stderr);
    try {
      const missed: string[] = [];
      for (const fault of FAULTS) {
        const follow = fault.page === "/nav-from/" ? ["--follow", '["/about/"]'] : [];
        // A first view may reload once while Vite optimises dependencies: the second answer counts.
        let answer = "";
        for (let attempt = 0; attempt < 3 && !(fault.what.test(answer) && fault.file.test(answer)); attempt += 1) {
          const result = await site.vigie(["browser_js_errors", "--path", fault.page, ...follow], 120_000);
          answer = result.stdout;
        }
        if (!fault.what.test(answer) || !fault.file.test(answer)) missed.push(`${fault.name}: ${answer.slice(0, 1500)}`);
        else figure(`js_errors (dev), ${fault.name}: ${answer.replace(/\s+/g, " ").slice(0, 600)}`);
      }
      assert.deepEqual(missed, []);
      // Actions through the CLI: the third click's error names step 3 and the component's file.
      let clicked: Record<string, unknown> = {};
      for (let attempt = 0; attempt < 3 && !JSON.stringify(clicked).includes("third click"); attempt += 1) {
        const result = await site.vigie(
          ["browser_js_errors", "--path", "/click-throws/", "--actions", JSON.stringify(THREE_CLICKS)],
          120_000,
        );
        clicked = JSON.parse(result.stdout) as Record<string, unknown>;
      }
      const thrown = (clicked.errors as { message: string; afterStep?: number; source?: string }[]).find(
        (error) => typeof error === "object" && error.message.includes("third click"),
      );
      assert.equal(thrown?.afterStep, 3, JSON.stringify(clicked));
      assert.match(`${thrown?.source} ${thrown?.message}`, /src\/components\/react\/ClickCounter\.tsx/, JSON.stringify(clicked));
      figure(`js_errors (dev) with 3 clicks, ${Buffer.byteLength(JSON.stringify(clicked))} B: ${JSON.stringify(clicked)}`);
      // A target that is not there: the page's buttons, at once.
      const missing = await site.vigie(
        ["browser_js_errors", "--path", "/click-throws/", "--actions", '[{"click":"button Increment"}]'],
        120_000,
      );
      const answer = JSON.parse(missing.stdout) as { stepFailed?: { step: number; onThePage?: string[] } };
      assert.equal(answer.stepFailed?.step, 1, missing.stdout);
      assert.ok(
        answer.stepFailed?.onThePage?.some((name) => /^button Clicks/.test(name)),
        missing.stdout,
      );
      figure(`js_errors (dev), a missing target, ${Buffer.byteLength(missing.stdout.trim())} B: ${missing.stdout.trim()}`);
    } finally {
      await site.vigie(["dev_stop"], 60_000);
    }
  });
});
