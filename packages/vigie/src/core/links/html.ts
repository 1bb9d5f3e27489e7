// What a built page links to and what it can be linked to: every URL-bearing
// attribute (href, src, srcset, poster...) with its line, every id and a[name].
import { type DefaultTreeAdapterTypes, parse } from "parse5";

export interface PageRef {
  url: string;
  /** e.g. a[href], img[srcset], link[rel=alternate][hreflang=en] */
  where: string;
  line: number;
  /** Set for <link rel="alternate" hreflang>. */
  hreflang?: string;
}

export interface PageLinks {
  ids: Set<string>;
  refs: PageRef[];
}

const URL_ATTRIBUTES: Record<string, string[]> = {
  a: ["href"],
  area: ["href"],
  link: ["href", "imagesrcset"],
  img: ["src", "srcset"],
  source: ["src", "srcset"],
  script: ["src"],
  video: ["src", "poster"],
  audio: ["src"],
  track: ["src"],
  iframe: ["src"],
  embed: ["src"],
  object: ["data"],
  input: ["src"],
  use: ["href", "xlink:href"],
  image: ["href", "xlink:href"],
};

/** Meta tags whose content is a URL of the site (social cards). */
const URL_METAS = new Set(["og:image", "og:url", "twitter:image", "og:image:url", "og:audio", "og:video"]);
/** Link relations that name an origin, not a resource. */
const NOT_RESOURCES = /\b(preconnect|dns-prefetch)\b/i;

/** The URLs of a srcset: "a.webp 380w, b.webp 760w" → [a.webp, b.webp]. */
export function srcsetUrls(value: string): string[] {
  return value
    .split(/,\s+|,(?=\S+\s+\d)/)
    .map((candidate) => candidate.trim().split(/\s+/)[0] ?? "")
    .filter(Boolean);
}

type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;

export function readPage(html: string): PageLinks {
  const document = parse(html, { sourceCodeLocationInfo: true });
  const ids = new Set<string>();
  const refs: PageRef[] = [];
  const visit = (parent: ParentNode) => {
    for (const node of parent.childNodes) {
      if (!("tagName" in node)) continue;
      const element = node as Element;
      const attributes = new Map(
        element.attrs.map((attribute) => [attribute.prefix ? `${attribute.prefix}:${attribute.name}` : attribute.name, attribute.value]),
      );
      const line = element.sourceCodeLocation?.startLine ?? 0;
      const id = attributes.get("id");
      if (id) ids.add(id);
      if (element.tagName === "a" && attributes.get("name")) ids.add(attributes.get("name") as string);
      const tag = element.tagName;
      const rel = attributes.get("rel") ?? "";
      for (const name of URL_ATTRIBUTES[tag] ?? []) {
        const value = attributes.get(name);
        if (value === undefined || value.trim() === "") continue;
        if (tag === "link" && NOT_RESOURCES.test(rel)) continue;
        if (name.endsWith("srcset")) {
          for (const url of srcsetUrls(value)) refs.push({ url, where: `${tag}[${name}]`, line });
        } else if (tag === "link" && /\balternate\b/i.test(rel) && attributes.has("hreflang")) {
          const hreflang = attributes.get("hreflang") as string;
          refs.push({ url: value.trim(), where: `link[rel=alternate][hreflang=${hreflang}]`, line, hreflang });
        } else refs.push({ url: value.trim(), where: `${tag}[${name}]`, line });
      }
      if (tag === "meta") {
        const property = attributes.get("property") ?? attributes.get("name") ?? "";
        const content = attributes.get("content");
        if (URL_METAS.has(property) && content) refs.push({ url: content.trim(), where: `meta[${property}]`, line });
      }
      visit(element);
      if (tag === "template") visit((element as DefaultTreeAdapterTypes.Template).content);
    }
  };
  visit(document);
  return { ids, refs };
}

/** URLs in a sitemap or a feed: <loc> and <link> values. */
export function readXmlUrls(xml: string): PageRef[] {
  const refs: PageRef[] = [];
  const lines = xml.split("\n");
  for (const [index, text] of lines.entries()) {
    for (const match of text.matchAll(/<(loc|link)>\s*([^<\s]+)\s*<\/\1>/g))
      refs.push({ url: match[2] as string, where: `<${match[1]}>`, line: index + 1 });
  }
  return refs;
}
