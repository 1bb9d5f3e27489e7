// Source maps of the scripts a page ran: the inline `data:` map Vite's dev server appends
// to every module, or a map file a build emitted (`//# sourceMappingURL=x.js.map`).
// Parsed with source-map-js (a dependency of vigie, and the parser Vite and PostCSS use),
// loaded only when a stack needs mapping; should it fail to load, positions stay unmapped
// and the finding says so.

export interface OriginalPosition {
  /** The original source, resolved to an absolute URL against the map's. */
  source: string;
  /** 1-based. */
  line: number;
  /** The original source's text, when the map carries it. */
  content?: string;
}

export type FetchText = (url: string) => Promise<string | undefined>;

/** GETs a URL's text once per check (cached by the caller's closure), within a short timeout. */
export function cachedFetcher(timeoutMs = 3000): FetchText {
  const cache = new Map<string, Promise<string | undefined>>();
  return (url) => {
    let pending = cache.get(url);
    if (!pending) {
      pending = fetch(url, { signal: AbortSignal.timeout(timeoutMs) })
        .then((response) => (response.ok ? response.text() : undefined))
        .catch(() => undefined);
      cache.set(url, pending);
    }
    return pending;
  };
}

/** The map's URL or inline JSON, from the last `sourceMappingURL` comment of a script. */
async function loadMap(scriptUrl: string, script: string, fetchText: FetchText): Promise<{ json: string; url: string } | undefined> {
  const comment = /[#@]\s*sourceMappingURL=(\S+)\s*(?:\*\/)?\s*$/.exec(script.slice(-200_000));
  if (!comment) return undefined;
  const reference = comment[1] ?? "";
  const inline = /^data:application\/json;(?:charset=[\w-]+;)?base64,(.+)$/.exec(reference);
  if (inline) return { json: Buffer.from(inline[1] ?? "", "base64").toString("utf8"), url: scriptUrl };
  if (reference.startsWith("data:")) {
    const comma = reference.indexOf(",");
    return comma === -1 ? undefined : { json: decodeURIComponent(reference.slice(comma + 1)), url: scriptUrl };
  }
  let mapUrl: string;
  try {
    mapUrl = new URL(reference, scriptUrl).href;
  } catch {
    return undefined;
  }
  if (new URL(mapUrl).origin !== new URL(scriptUrl).origin) return undefined;
  const json = await fetchText(mapUrl);
  return json ? { json, url: mapUrl } : undefined;
}

type Consumer = import("source-map-js").SourceMapConsumer;
let consumerClass: Promise<(new (map: string, url?: string) => Consumer) | undefined> | undefined;

export function sourceMapConsumer() {
  consumerClass ??= import("source-map-js")
    .then((module) => module.SourceMapConsumer as unknown as new (map: string, url?: string) => Consumer)
    .catch(() => undefined);
  return consumerClass;
}

export type MapResult = { position: OriginalPosition } | { noMap: string };

/**
 * Where a position (1-based line and column, as in a stack) of the script at `scriptUrl`
 * comes from, through its source map.
 */
export async function originalPosition(scriptUrl: string, line: number, column: number, fetchText: FetchText): Promise<MapResult> {
  const script = await fetchText(scriptUrl);
  if (script === undefined) return { noMap: "the script could not be fetched again" };
  const map = await loadMap(scriptUrl, script, fetchText);
  if (!map) return { noMap: "the script has no source map" };
  const Consumer = await sourceMapConsumer();
  if (!Consumer) return { noMap: "source-map-js is not installed" };
  try {
    const consumer = new Consumer(map.json, map.url);
    const mapped = consumer.originalPositionFor({ line, column: Math.max(0, column - 1) });
    if (!mapped.source || !mapped.line) return { noMap: "the source map has no mapping for that position" };
    const content = consumer.sourceContentFor(mapped.source, true) ?? undefined;
    return { position: { source: mapped.source, line: mapped.line, ...(content ? { content } : {}) } };
  } catch {
    return { noMap: "the source map could not be read" };
  }
}
