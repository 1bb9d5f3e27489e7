// Astro sites unlike the blog, made from files in <repo>/.fixtures/<name>-<random>/: Node
// and Vite find astro, mdx and mermaid in the repository's node_modules by walking up.
// The files of a Starlight site are here too; site-install.ts installs it from npm.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Project, projectAt } from "../../packages/vigie/src/core/project.ts";
import { FIXTURES_DIR } from "../../packages/vigie/test/support/blog.ts";

export interface Site extends Project {
  /** Writes (or overwrites) a file of the site. */
  write(path: string, text: string): void;
  read(path: string): string;
  remove(): void;
}

export function makeSite(name: string, files: Record<string, string>, dependencies: Record<string, string> = {}): Site {
  const root = join(FIXTURES_DIR, `${name}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const packageJson = {
    name,
    private: true,
    type: "module",
    scripts: { dev: "astro dev", build: "astro build", preview: "astro preview", astro: "astro" },
    ...(Object.keys(dependencies).length ? { dependencies } : {}),
  };
  write("package.json", `${JSON.stringify(packageJson, null, 2)}\n`);
  write("public/favicon.svg", FAVICON);
  for (const [path, text] of Object.entries(files)) write(path, text);
  return {
    ...projectAt(root),
    write,
    read: (path) => readFileSync(join(root, path), "utf8"),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="#246"/></svg>\n`;

const layout = (lang: string) => `---
// Markdown pages pass their frontmatter; .astro pages pass title.
const { title = Astro.props.frontmatter?.title } = Astro.props;
const base = import.meta.env.BASE_URL.replace(/\\/$/, "");
---
<html lang="${lang}">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <link rel="icon" type="image/svg+xml" href={\`\${base}/favicon.svg\`} />
    <title>{title}</title>
    <slot name="head" />
  </head>
  <body>
    <main>
      <h1>{title}</h1>
      <slot />
    </main>
  </body>
</html>
`;

/**
 * A few .astro and .md pages, no integration, no i18n, no content collection, no
 * sitemap. `base` and `trailingSlash` on request.
 */
export function minimalSite(options: { base?: string; trailingSlash?: "always" | "never" } = {}): Site {
  const base = options.base ?? "";
  const slash = options.trailingSlash === "never" ? "" : "/";
  const url = (path: string) => `${base}/${path}${path ? slash : ""}`;
  const settings = [
    ...(options.base ? [`  base: "${options.base}",`] : []),
    ...(options.trailingSlash ? [`  trailingSlash: "${options.trailingSlash}",`] : []),
  ];
  return makeSite("minimal", {
    "astro.config.mjs": `import { defineConfig } from "astro/config";\n\nexport default defineConfig({\n${settings.join("\n")}\n  devToolbar: { enabled: false },\n});\n`,
    "src/layouts/Page.astro": layout("en"),
    "src/pages/index.astro": `---
import Page from "../layouts/Page.astro";
---
<Page title="A small site">
  <p>Three more pages:</p>
  <ul>
    <li><a href="${url("about")}">About</a></li>
    <li><a href="${url("guide")}">The guide</a></li>
    <li><a href="${url("notes/first")}">First note</a></li>
  </ul>
</Page>
`,
    "src/pages/about.astro": `---
import Page from "../layouts/Page.astro";
---
<Page title="About">
  <p>Made with Astro, checked by vigie. <a href="${url("")}">Home</a>.</p>
</Page>
`,
    "src/pages/guide.md": `---
layout: ../layouts/Page.astro
title: The guide
---

A Markdown page with no content collection. Read [the first note](${url("notes/first")}) next,
or go back [home](${url("")}).

## Steps

1. Write.
2. Check.
`,
    "src/pages/notes/first.md": `---
layout: ../../layouts/Page.astro
title: First note
---

Another Markdown page, one folder down. [The guide](${url("guide")}).
`,
  });
}

/**
 * Several locales with another default: de (at /), fr and it; a collection with a glob
 * loader in src/data/notes (not src/content), each note in the three languages.
 */
export function multilingualSite(): Site {
  const locales = ["de", "fr", "it"] as const;
  const notes: Record<string, Record<(typeof locales)[number], string>> = {
    welcome: { de: "Willkommen", fr: "Bienvenue", it: "Benvenuti" },
    weather: { de: "Das Wetter", fr: "La météo", it: "Il tempo" },
  };
  const files: Record<string, string> = {
    "astro.config.mjs": `import { defineConfig } from "astro/config";

export default defineConfig({
  site: "https://example.org",
  i18n: {
    defaultLocale: "de",
    locales: ["de", "fr", "it"],
    routing: { prefixDefaultLocale: false },
  },
  devToolbar: { enabled: false },
});
`,
    "src/content.config.ts": `import { defineCollection } from "astro:content";
import { glob } from "astro/loaders";
import { z } from "astro/zod";

const notes = defineCollection({
  loader: glob({ pattern: "**/*.md", base: "./src/data/notes" }),
  schema: z.object({ title: z.string().min(1), lang: z.enum(["de", "fr", "it"]), key: z.string().min(1) }),
});

export const collections = { notes };
`,
    "src/layouts/Page.astro": `---
const { title, lang, alternates = [] } = Astro.props;
---
<html lang={lang}>
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <link rel="icon" type="image/svg+xml" href="/favicon.svg" />
    {alternates.map((alternate) => <link rel="alternate" hreflang={alternate.lang} href={alternate.href} />)}
    <title>{title}</title>
  </head>
  <body>
    <main>
      <h1>{title}</h1>
      <slot />
    </main>
  </body>
</html>
`,
    "src/lib/paths.ts": `export const home = (lang: string) => (lang === "de" ? "/" : \`/\${lang}/\`);
export const notePath = (lang: string, key: string) => \`\${home(lang)}notes/\${key}/\`;
`,
    "src/pages/[...path].astro": `---
import { getCollection, render } from "astro:content";
import Page from "../layouts/Page.astro";
import { notePath } from "../lib/paths";

export async function getStaticPaths() {
  const notes = await getCollection("notes");
  return notes.map((note) => ({
    params: { path: notePath(note.data.lang, note.data.key).slice(1, -1) },
    props: { note, alternates: notes.filter((other) => other.data.key === note.data.key) },
  }));
}
const { note, alternates } = Astro.props;
const { Content } = await render(note);
---
<Page
  title={note.data.title}
  lang={note.data.lang}
  alternates={alternates.map((other) => ({ lang: other.data.lang, href: notePath(other.data.lang, other.data.key) }))}
>
  <Content />
</Page>
`,
  };
  for (const lang of locales) {
    const prefix = lang === "de" ? "" : `${lang}/`;
    const links = Object.entries(notes)
      .map(([key, titles]) => `    <li><a href={notePath("${lang}", "${key}")}>${titles[lang]}</a></li>`)
      .join("\n");
    files[`src/pages/${prefix}index.astro`] = `---
import Page from "${lang === "de" ? "../" : "../../"}layouts/Page.astro";
import { home, notePath } from "${lang === "de" ? "../" : "../../"}lib/paths";
---
<Page title="Notes (${lang})" lang="${lang}">
  <ul>
${links}
  </ul>
  <p>${locales.map((other) => `<a href={home("${other}")} hreflang="${other}">${other}</a>`).join(" · ")}</p>
</Page>
`;
    for (const [key, titles] of Object.entries(notes)) {
      files[`src/data/notes/${lang}/${key}.md`] = `---
title: ${titles[lang]}
lang: ${lang}
key: ${key}
---

${titles[lang]}: a note in ${lang}. [Home](${lang === "de" ? "/" : `/${lang}/`})
`;
    }
  }
  return makeSite("locales", files);
}

/** The Starlight version the tests install, and the astro it must work with. */
export const STARLIGHT = "@astrojs/starlight@0.42.4";

const STARLIGHT_PAGES: Record<string, { en: string; fr: string; body?: string }> = {
  index: { en: "Welcome", fr: "Bienvenue" },
  "guides/install": { en: "Install", fr: "Installer" },
  "guides/configure": { en: "Configure", fr: "Configurer" },
  "guides/deploy": { en: "Deploy", fr: "Déployer" },
  "reference/options": { en: "Options", fr: "Options" },
  "reference/cli": { en: "Command line", fr: "Ligne de commande" },
};

/**
 * The files of a Starlight documentation site in two languages (English at the root,
 * French under /fr/), a dozen pages, one with a Mermaid diagram drawn by a client script
 * (mermaid loaded with a dynamic import). Its favicon included.
 */
export function starlightFiles(): Record<string, string> {
  const files: Record<string, string> = {
    "public/favicon.svg": FAVICON,
    "astro.config.mjs": `import starlight from "@astrojs/starlight";
import { defineConfig } from "astro/config";

export default defineConfig({
  site: "https://docs.example.com",
  integrations: [
    starlight({
      title: "Example docs",
      defaultLocale: "root",
      locales: {
        root: { label: "English", lang: "en" },
        fr: { label: "Français", lang: "fr" },
      },
      sidebar: [
        { label: "Guides", items: [{ autogenerate: { directory: "guides" } }] },
        { label: "Reference", items: [{ autogenerate: { directory: "reference" } }] },
      ],
    }),
  ],
  devToolbar: { enabled: false },
  // Mermaid loads on demand, from its own chunk larger than 500 kB.
  vite: { build: { chunkSizeWarningLimit: 1600 } },
});
`,
    "src/content.config.ts": `import { defineCollection } from "astro:content";
import { docsLoader } from "@astrojs/starlight/loaders";
import { docsSchema } from "@astrojs/starlight/schema";

export const collections = {
  docs: defineCollection({ loader: docsLoader(), schema: docsSchema() }),
};
`,
    "src/components/Mermaid.astro": `---
const { code } = Astro.props;
---
<pre class="mermaid">{code}</pre>
<script>
  document.documentElement.dataset.mermaid = "pending";
  import("mermaid")
    .then(async ({ default: mermaid }) => {
      mermaid.initialize({ startOnLoad: false });
      await mermaid.run();
    })
    .finally(() => {
      document.documentElement.dataset.mermaid = "done";
    });
</script>
`,
  };
  for (const [path, titles] of Object.entries(STARLIGHT_PAGES)) {
    for (const lang of ["en", "fr"] as const) {
      const folder = lang === "en" ? "src/content/docs" : "src/content/docs/fr";
      files[`${folder}/${path}.md`] = `---
title: ${titles[lang]}
description: ${titles[lang]} (${lang}).
---

${lang === "en" ? "A page of the example documentation." : "Une page de la documentation d'exemple."}
`;
    }
  }
  // The diagram page, in English only: Starlight makes the French fallback itself.
  files["src/content/docs/guides/architecture.mdx"] = `---
title: Architecture
description: How the parts fit, as a diagram.
---
import Mermaid from "../../../components/Mermaid.astro";

The parts of the system:

<Mermaid code={\`flowchart LR
  A[Writer] --> B[Build]
  B --> C[Readers]\`} />
`;
  return files;
}
