// A fingerprint of each built page: the hash of its HTML and of every asset it loads
// from the build (scripts and the chunks they import, styles and what they reference,
// images, fonts, frames), so that a change to a layout, a component, a style or a shared
// script reaches every page whose output it alters, without guessing from import graphs.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { servedFile } from "../files.ts";

/** Attributes that make the browser load something (not `<a href>`: a link loads nothing). */
const LOADING_TAG = /<(script|link|img|source|video|audio|iframe|embed|object|track|input|image|use)\b([^>]*)>/gi;
const ATTRIBUTE = /\b(src|href|srcset|poster|data|imagesrcset|xlink:href)\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))/gi;
/** References inside scripts and styles: `import("./x.js")`, `from "/_astro/y.js"`, `url(z.woff2)`, `@import "w.css"`. */
const SCRIPT_REFERENCE = /(?:\bimport\s*\(\s*|\bfrom\s*|\bimport\s*|new URL\(\s*)["'`]([^"'`\s]+)["'`]/g;
const STYLE_REFERENCE = /url\(\s*(?:"([^"]*)"|'([^']*)'|([^)\s]*))\s*\)|@import\s+["']([^"']+)["']/g;
/** Bundlers also name their chunks by bare quoted paths: "./chunk-abc.js", "/_astro/x.css". */
const QUOTED_ASSET = /["'`]((?:\.{1,2}\/|\/)[^"'`\s]+\.(?:m?js|css|wasm|json|woff2?|ttf|svg|png|jpe?g|webp|avif|gif))["'`]/g;

/** Inline styles and the links that load stylesheets: left out of a page's fingerprint without its styles. */
const STYLE_ELEMENT = /<style\b[^>]*>[\s\S]*?<\/style\s*>/gi;
const STYLESHEET_LINK = /<link\b(?=[^>]*\brel\s*=\s*["']?[^"'>]*\bstylesheet\b)[^>]*>/gi;
const STYLE_PRELOAD = /<link\b(?=[^>]*\brel\s*=\s*["']?preload\b)(?=[^>]*\bas\s*=\s*["']?style\b)[^>]*>/gi;

export class Fingerprints {
  readonly #dir: string;
  readonly #base: string;
  readonly #assets = new Map<string, string>();
  readonly #pages = new Map<string, string | undefined>();
  readonly #rests = new Map<string, string | undefined>();

  /** `dir`: the build's output folder; `base`: the site's base ("/" or "/docs/"). */
  constructor(dir: string, base = "/") {
    this.#dir = resolve(dir);
    this.#base = base.replace(/\/+$/, "");
  }

  /** The page's fingerprint, or undefined when the build has no page at that path. */
  page(path: string): string | undefined {
    if (this.#pages.has(path)) return this.#pages.get(path);
    const file = this.fileOf(path);
    let fingerprint: string | undefined;
    if (file && /\.html?$/i.test(file)) {
      const html = readFileSync(file, "utf8");
      const hash = createHash("sha256").update(html);
      for (const reference of [...new Set(pageReferences(html))].sort()) hash.update(`\0${reference}=${this.#asset(reference, path)}`);
      fingerprint = hash.digest("base64url").slice(0, 22);
    }
    this.#pages.set(path, fingerprint);
    return fingerprint;
  }

  /**
   * The page's fingerprint without its stylesheets: its HTML less its inline styles and the
   * links that load stylesheets, and every other asset it loads. It stays the same while only
   * stylesheets changed (a script that names a stylesheet changes with it).
   */
  rest(path: string): string | undefined {
    if (this.#rests.has(path)) return this.#rests.get(path);
    const file = this.fileOf(path);
    let fingerprint: string | undefined;
    if (file && /\.html?$/i.test(file)) {
      const html = readFileSync(file, "utf8").replace(STYLE_ELEMENT, "").replace(STYLESHEET_LINK, "").replace(STYLE_PRELOAD, "");
      const hash = createHash("sha256").update(html);
      for (const reference of [...new Set(pageReferences(html))].sort()) hash.update(`\0${reference}=${this.#asset(reference, path)}`);
      fingerprint = hash.digest("base64url").slice(0, 22);
    }
    this.#rests.set(path, fingerprint);
    return fingerprint;
  }

  /** The build's HTML of a page, when it has one. */
  html(path: string): string | undefined {
    const file = this.fileOf(path);
    return file && /\.html?$/i.test(file) ? readFileSync(file, "utf8") : undefined;
  }

  /** The build's file for a URL path, found as a static server finds it (x/ → x/index.html, x → x.html). */
  fileOf(urlPath: string): string | undefined {
    const pathname = urlPath.split(/[?#]/)[0] ?? "/";
    if (this.#base && pathname !== this.#base && !pathname.startsWith(`${this.#base}/`)) return undefined;
    return servedFile(this.#dir, pathname.slice(this.#base.length) || "/");
  }

  /** An asset's hash: its bytes and, for scripts and styles, what they load in turn. */
  #asset(reference: string, from: string, seen = new Set<string>()): string {
    let url: URL;
    try {
      url = new URL(reference, `http://site${from.startsWith("/") ? from : `/${from}`}`);
    } catch {
      return "unparsed";
    }
    if (url.origin !== "http://site") return "external";
    const file = this.fileOf(url.pathname);
    if (!file) return "missing";
    const cached = this.#assets.get(file);
    if (cached) return cached;
    if (seen.has(file)) return "cycle";
    seen.add(file);
    const bytes = readFileSync(file);
    const hash = createHash("sha256").update(bytes);
    if (/\.(m?js|css)$/i.test(file)) {
      const text = bytes.toString("utf8");
      const references = /\.css$/i.test(file) ? styleReferences(text) : scriptReferences(text);
      for (const inner of [...new Set(references)].sort()) hash.update(`\0${inner}=${this.#asset(inner, url.pathname, seen)}`);
    }
    // HTML in a frame is a page of its own: its own bytes count here, not what it loads.
    const digest = hash.digest("base64url").slice(0, 22);
    this.#assets.set(file, digest);
    return digest;
  }
}

function attributeValues(attributes: string): { name: string; value: string }[] {
  return [...attributes.matchAll(ATTRIBUTE)].map((match) => ({
    name: (match[1] ?? "").toLowerCase(),
    value: match[3] ?? match[4] ?? match[5] ?? "",
  }));
}

const fromSrcset = (value: string) =>
  value
    .split(",")
    .map((candidate) => candidate.trim().split(/\s+/)[0] ?? "")
    .filter(Boolean);

/** What a page loads from its own site: tags' src/href/srcset, and what inline scripts and styles reference. */
export function pageReferences(html: string): string[] {
  const references: string[] = [];
  for (const match of html.matchAll(LOADING_TAG)) {
    const tag = (match[1] ?? "").toLowerCase();
    const attributes = attributeValues(match[2] ?? "");
    // <link rel="alternate|canonical|next|prev" href> points at pages; only what the browser fetches counts.
    const rel = attributes.find((attribute) => attribute.name === "href" && tag === "link")
      ? (/\brel\s*=\s*["']?([^"'>]+)/i.exec(match[2] ?? "")?.[1] ?? "").toLowerCase()
      : "";
    if (tag === "link" && /\b(alternate|canonical|next|prev|author|help|license|search|bookmark)\b/.test(rel) && !/icon/.test(rel))
      continue;
    for (const { name, value } of attributes) {
      if (!value || value.startsWith("data:") || value.startsWith("#")) continue;
      if (name === "srcset" || name === "imagesrcset") references.push(...fromSrcset(value));
      else references.push(value);
    }
  }
  references.push(...scriptReferences(html), ...styleReferences(html));
  return references.filter((reference) => !/^(data|javascript|mailto|tel|blob):/i.test(reference));
}

function scriptReferences(text: string): string[] {
  const found = [...text.matchAll(SCRIPT_REFERENCE)].map((match) => match[1] ?? "");
  found.push(...[...text.matchAll(QUOTED_ASSET)].map((match) => match[1] ?? ""));
  // Bare module names ("react") are not files of the build.
  return found.filter((reference) => /^(\.{1,2}\/|\/(?!\/))/.test(reference));
}

function styleReferences(text: string): string[] {
  return [...text.matchAll(STYLE_REFERENCE)]
    .map((match) => (match[1] ?? match[2] ?? match[3] ?? match[4] ?? "").trim())
    .filter((reference) => reference && !reference.startsWith("data:") && !reference.startsWith("#"));
}
