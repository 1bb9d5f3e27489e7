import rss from "@astrojs/rss";
import type { APIContext } from "astro";
import { t } from "../../i18n/ui.ts";
import { articleUrl, getArticles } from "../../lib/articles.ts";

export async function GET(context: APIContext): Promise<Response> {
  const articles = await getArticles("en");
  return rss({
    title: t("en", "site.title"),
    description: t("en", "rss.description"),
    site: context.site ?? "https://vigie.dev",
    items: articles.map((article) => ({
      title: article.data.title,
      description: article.data.description,
      pubDate: article.data.date,
      link: articleUrl(article),
      categories: article.data.tags,
    })),
    customData: "<language>en</language>",
  });
}
