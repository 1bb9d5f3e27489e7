import rss from "@astrojs/rss";
import type { APIContext } from "astro";
import { t } from "../i18n/ui.ts";
import { articleUrl, getArticles } from "../lib/articles.ts";

export async function GET(context: APIContext): Promise<Response> {
  const articles = await getArticles("fr");
  return rss({
    title: t("fr", "site.title"),
    description: t("fr", "rss.description"),
    site: context.site ?? "https://vigie.dev",
    items: articles.map((article) => ({
      title: article.data.title,
      description: article.data.description,
      pubDate: article.data.date,
      link: articleUrl(article),
      categories: article.data.tags,
    })),
    customData: "<language>fr</language>",
  });
}
