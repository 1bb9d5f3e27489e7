// The server-rendered site of the SSR tests, made from npm: @astrojs/node, prerendered pages
// (home, about, the posts of a content collection, 404), pages rendered on demand (/posts/,
// /now/, /greet/[name]/) and an endpoint the home fetches.
import type { SiteSpec } from "./site-install.ts";

const layout = `---
const { title } = Astro.props;
---
<html lang="en">
  <head>
    <meta charset="utf-8" /><meta name="viewport" content="width=device-width" /><link rel="icon" href="data:," />
    <link rel="stylesheet" href="/styles/site.css" />
    <title>{title}</title>
  </head>
  <body>
    <nav><a href="/">Home</a> <a href="/about/">About</a> <a href="/posts/">Posts</a> <a href="/now/">Now</a> <a href="/greet/ann/">Greet Ann</a></nav>
    <main><slot /></main>
  </body>
</html>
`;

const post = (n: number) => `---
title: Post ${n}
---

Post number ${n}. Back to [all posts](/posts/).
`;

export const SSR_NODE_SITE: SiteSpec = {
  name: "ssr-node",
  dependencies: { "@astrojs/node": "11.1.6" },
  files: {
    "astro.config.mjs": `import node from "@astrojs/node";
import { defineConfig } from "astro/config";

export default defineConfig({ output: "server", adapter: node({ mode: "standalone" }) });
`,
    "vigie.config.json": JSON.stringify({ checks: { check: false }, budgets: { loadMs: 5000 } }),
    "public/styles/site.css": "body { font-family: sans-serif; margin: 2rem; }\n",
    "src/layouts/Base.astro": layout,
    "src/content.config.ts": `import { defineCollection } from "astro:content";
import { glob } from "astro/loaders";
import { z } from "astro/zod";

export const collections = {
  posts: defineCollection({ loader: glob({ pattern: "*.md", base: "./src/content/posts" }), schema: z.object({ title: z.string() }) }),
};
`,
    "src/content/posts/post-1.md": post(1),
    "src/content/posts/post-2.md": post(2),
    "src/content/posts/post-3.md": post(3),
    "src/pages/index.astro": `---
import Base from "../layouts/Base.astro";
export const prerender = true;
---
<Base title="Home">
  <h1>Home</h1>
  <p id="stats">Loading the stats.</p>
  <script>
    const response = await fetch("/api/stats.json");
    const stats = await response.json();
    document.getElementById("stats").textContent = \`\${stats.posts} posts\`;
  </script>
</Base>
`,
    "src/pages/about.astro": `---
import Base from "../layouts/Base.astro";
export const prerender = true;
---
<Base title="About">
  <h1>About</h1>
  <p>A small site, partly rendered on demand.</p>
</Base>
`,
    "src/pages/404.astro": `---
import Base from "../layouts/Base.astro";
export const prerender = true;
---
<Base title="Not found"><h1>Not found</h1></Base>
`,
    "src/pages/posts/[id].astro": `---
import { getCollection, render } from "astro:content";
import Base from "../../layouts/Base.astro";
export const prerender = true;
export async function getStaticPaths() {
  return (await getCollection("posts")).map((entry) => ({ params: { id: entry.id }, props: { entry } }));
}
const { entry } = Astro.props;
const { Content } = await render(entry);
---
<Base title={entry.data.title}><h1>{entry.data.title}</h1><Content /></Base>
`,
    "src/pages/posts/index.astro": `---
import { getCollection } from "astro:content";
import Base from "../../layouts/Base.astro";
const posts = await getCollection("posts");
---
<Base title="Posts">
  <h1>Posts</h1>
  <ul>{posts.map((entry) => <li><a href={\`/posts/\${entry.id}/\`}>{entry.data.title}</a></li>)}</ul>
</Base>
`,
    "src/pages/now.astro": `---
import Base from "../layouts/Base.astro";
const now = new Date().toISOString().slice(0, 10);
---
<Base title="Now">
  <h1>Now</h1>
  <p>Today is {now}.</p>
</Base>
`,
    "src/pages/greet/[name].astro": `---
import Base from "../../layouts/Base.astro";
const { name } = Astro.params;
if (name === "zed") throw new Error("no greeting for zed");
---
<Base title={\`Hello \${name}\`}><h1>Hello {name}</h1></Base>
`,
    "src/pages/api/stats.json.ts": `import { getCollection } from "astro:content";

export async function GET() {
  const posts = await getCollection("posts");
  return Response.json({ posts: posts.length });
}
`,
  },
};
