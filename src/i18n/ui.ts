export const languages = { fr: "Français", en: "English" } as const;
export type Lang = keyof typeof languages;
export const defaultLang: Lang = "fr";
export const htmlLang: Record<Lang, string> = { fr: "fr-FR", en: "en-US" };

const strings = {
  fr: {
    "site.title": "Vigie",
    "site.tagline": "Regarder la page, pas seulement le code : vérifier ce que les agents de code livrent.",
    "nav.home": "Accueil",
    "nav.articles": "Articles",
    "nav.tags": "Thèmes",
    "nav.rss": "Flux RSS",
    "nav.main": "Navigation principale",
    skip: "Aller au contenu",
    "lang.switch": "Lire en anglais",
    "home.latest": "Derniers articles",
    "home.all": "Tous les articles",
    "articles.title": "Articles",
    "articles.intro":
      "Tout ce que nous avons écrit sur les serveurs de développement, les navigateurs sans tête et les vérifications qui comptent.",
    "tags.title": "Thèmes",
    "tags.intro": "Les articles, classés par thème.",
    "tag.title": "Thème :",
    "article.published": "Publié le",
    "article.updated": "Mis à jour le",
    "article.tags": "Thèmes de l'article",
    "article.translation": "Read this article in English",
    "footer.text": "Vigie, un blog sur l'outillage des agents de code.",
    "notfound.title": "Page introuvable",
    "notfound.text": "Cette page n'existe pas ou plus.",
    "notfound.back": "Retour à l'accueil",
    copy: "Copier",
    copied: "Copié",
    "diagram.error": "Ce diagramme n'a pas pu être dessiné.",
    "rss.description": "Les articles de Vigie, en français.",
  },
  en: {
    "site.title": "Vigie",
    "site.tagline": "Look at the page, not just the code: checking what coding agents ship.",
    "nav.home": "Home",
    "nav.articles": "Articles",
    "nav.tags": "Topics",
    "nav.rss": "RSS feed",
    "nav.main": "Main navigation",
    skip: "Skip to content",
    "lang.switch": "Lire en français",
    "home.latest": "Latest articles",
    "home.all": "All articles",
    "articles.title": "Articles",
    "articles.intro": "Everything we wrote about dev servers, headless browsers and the checks that matter.",
    "tags.title": "Topics",
    "tags.intro": "The articles, by topic.",
    "tag.title": "Topic:",
    "article.published": "Published on",
    "article.updated": "Updated on",
    "article.tags": "Article topics",
    "article.translation": "Lire cet article en français",
    "footer.text": "Vigie, a blog about tooling for coding agents.",
    "notfound.title": "Page not found",
    "notfound.text": "This page does not exist, or no longer does.",
    "notfound.back": "Back to the home page",
    copy: "Copy",
    copied: "Copied",
    "diagram.error": "This diagram could not be drawn.",
    "rss.description": "Vigie's articles, in English.",
  },
} as const;

export type UiKey = keyof (typeof strings)["fr"];

export function t(lang: Lang, key: UiKey): string {
  return strings[lang][key];
}

export function otherLang(lang: Lang): Lang {
  return lang === "fr" ? "en" : "fr";
}

/** The URL of a site path in a language: `/articles/` → `/en/articles/` for English. */
export function localizePath(lang: Lang, path: string): string {
  const clean = path.startsWith("/") ? path : `/${path}`;
  return lang === defaultLang ? clean : `/${lang}${clean === "/" ? "/" : clean}`;
}

export function formatDate(lang: Lang, date: Date): string {
  return new Intl.DateTimeFormat(htmlLang[lang], { dateStyle: "long", timeZone: "UTC" }).format(date);
}
