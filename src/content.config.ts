import { defineCollection } from "astro:content";
import { glob } from "astro/loaders";
import { z } from "astro/zod";

/** A translation key or tag: lowercase words joined by hyphens. */
const identifier = z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "lowercase words joined by hyphens, e.g. dev-server");

export const articleSchema = z.object({
  title: z.string().min(1).max(120),
  description: z.string().min(20).max(220),
  date: z.coerce.date(),
  updated: z.coerce.date().optional(),
  tags: z.array(identifier).min(1).max(6),
  lang: z.enum(["fr", "en"]),
  /** Shared by an article and its translation. */
  key: identifier,
  draft: z.boolean().default(false),
});

const articles = defineCollection({
  loader: glob({ pattern: "**/*.mdx", base: "./src/content/articles" }),
  schema: articleSchema,
});

export const collections = { articles };
