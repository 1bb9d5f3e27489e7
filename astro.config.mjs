// @ts-check
import mdx from "@astrojs/mdx";
import sitemap from "@astrojs/sitemap";
import { defineConfig } from "astro/config";

export default defineConfig({
  site: "https://vigie.dev",
  i18n: {
    defaultLocale: "fr",
    locales: ["fr", "en"],
    routing: { prefixDefaultLocale: false },
  },
  integrations: [
    mdx(),
    sitemap({
      i18n: { defaultLocale: "fr", locales: { fr: "fr-FR", en: "en-US" } },
      filter: (page) => !/\/404\/?$/.test(page),
    }),
  ],
  markdown: {
    // Mermaid fences are drawn in the browser, not highlighted.
    syntaxHighlight: { type: "shiki", excludeLangs: ["mermaid"] },
    // github-dark-default keeps enough colour contrast for axe.
    shikiConfig: {
      theme: "github-dark-default",
      // No time limit per line: on a busy machine Shiki would give up on a line and colour it
      // otherwise, and the same sources would not build the same page.
      transformers: [
        {
          name: "tokenize-without-time-limit",
          preprocess(_code, options) {
            options.tokenizeTimeLimit = 0;
          },
        },
      ],
    },
  },
  devToolbar: { enabled: false },
  vite: {
    build: {
      // Mermaid's chunks (elk, mermaid.core) pass 500 kB; they load only on pages with a diagram.
      chunkSizeWarningLimit: 1600,
      rolldownOptions: {
        onwarn(warning, warn) {
          // Astro's own MDX modules carry this directive on purpose; the notice is noise.
          if (warning.code === "MODULE_LEVEL_DIRECTIVE" && warning.message.includes("astro:head-inject")) return;
          warn(warning);
        },
      },
    },
  },
});
