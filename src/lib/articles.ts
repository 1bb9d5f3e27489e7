import { type CollectionEntry, getCollection } from "astro:content";
import { type Lang, localizePath } from "../i18n/ui.ts";

export type Article = CollectionEntry<"articles">;

/** The slug of an article: its file name without the language folder. */
export function articleSlug(article: Article): string {
  return article.id.split("/").pop() ?? article.id;
}

export function articleUrl(article: Article): string {
  return localizePath(article.data.lang, `/articles/${articleSlug(article)}/`);
}

export function tagUrl(lang: Lang, tag: string): string {
  return localizePath(lang, `/tags/${tag}/`);
}

/** Published articles of a language, newest first. */
export async function getArticles(lang: Lang): Promise<Article[]> {
  const all = await getCollection("articles", (entry) => entry.data.lang === lang && !entry.data.draft);
  return all.sort((a, b) => b.data.date.getTime() - a.data.date.getTime());
}

/** The same article in the other language, if it exists. */
export async function findTranslation(article: Article): Promise<Article | undefined> {
  const all = await getCollection("articles", (entry) => !entry.data.draft);
  return all.find((entry) => entry.data.key === article.data.key && entry.data.lang !== article.data.lang);
}

/** Every tag of a language with its articles, sorted by name. */
export async function getTags(lang: Lang): Promise<Map<string, Article[]>> {
  const tags = new Map<string, Article[]>();
  for (const article of await getArticles(lang)) {
    for (const tag of article.data.tags) {
      tags.set(tag, [...(tags.get(tag) ?? []), article]);
    }
  }
  return new Map([...tags.entries()].sort(([a], [b]) => a.localeCompare(b)));
}
