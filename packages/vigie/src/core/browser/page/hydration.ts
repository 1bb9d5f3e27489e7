// Which island a message came from, told in the page as it happens. A hydration mismatch is
// reported by the framework's own code (React's scheduler, Vue's, Svelte's), never by the
// component's module, so its stack cannot name the island. The watch below (an init script of
// every context the session makes) notes, for each error, warning or uncaught error of the
// page: the islands being hydrated at that moment (from Astro calling an island's `hydrate`
// until it removes its `ssr` attribute), and the islands whose DOM changed in the same turn of
// the event loop (a framework that finds a mismatch renders the island again: React after its
// report, Svelte right after its warning, Vue while it hydrates). One island: it is that one;
// several: the message names them all, and vigie says it cannot tell which.
import type { Page } from "playwright-core";
import { parseStack } from "../../source/stacks.ts";
import type { PageError } from "./findings.ts";

/** What the watch noted of one message: its first line, and the islands it may come from (their names). */
export interface MessageIslands {
  text: string;
  /**
   * For a console message: the stack of the code that wrote it. The watch's own function is
   * what the browser then names as the message's place, so the place is taken from here.
   */
  stack?: string;
  /** Islands in the middle of hydrating when the message came. */
  hydrating: string[];
  /** Islands whose DOM changed in the same turn as the message. */
  changed: string[];
}

/** Messages the watch keeps per document. */
const MAX_NOTES = 200;

export const HYDRATION_WATCH = `(() => {
  const key = Symbol.for("vigie.hydrationWatch");
  if (window[key]) return;
  const notes = [];
  Object.defineProperty(window, key, { value: notes });
  const nameOf = (island) => {
    try {
      const name = JSON.parse(island.getAttribute("opts") || "{}").name;
      if (typeof name === "string" && name) return name;
    } catch {}
    const file = (island.getAttribute("component-url") || "").split("/").pop() || "";
    return file.replace(/\\..*$/, "") || "unnamed";
  };
  const hydrating = new Set();
  let changed = new Set();
  let cleared = false;
  const islandOf = (node) => {
    const element = node && node.nodeType === 1 ? node : node && node.parentElement;
    return element && element.closest ? element.closest("astro-island") : null;
  };
  const note = (records) => {
    for (const record of records) {
      if (record.type === "attributes" && record.target.localName === "astro-island") continue;
      const island = islandOf(record.target);
      if (island) changed.add(island);
      if (!cleared) {
        cleared = true;
        queueMicrotask(() => { cleared = false; changed = new Set(); });
      }
    }
  };
  /** Notes waiting for what changes right after them, in the same turn (Svelte renders again after its warning). */
  let waiting = [];
  const observer = new MutationObserver((records) => {
    note(records);
    for (const entry of waiting) for (const island of changed) entry.changed.add(nameOf(island));
    waiting = [];
  });
  // Only a page with islands is observed: from the moment Astro defines <astro-island>.
  const start = () => observer.observe(document, { childList: true, subtree: true, characterData: true, attributes: true });
  const record = (text, stack) => {
    if (notes.length >= ${MAX_NOTES}) return;
    note(observer.takeRecords());
    const entry = { text: String(text).split("\\n")[0].slice(0, 200), hydrating: [...hydrating].map(nameOf), changed: new Set([...changed].map(nameOf)) };
    if (stack) entry.stack = stack;
    notes.push(entry);
    waiting.push(entry);
  };
  const join = (args) => [...args].map((arg) => (arg instanceof Error ? String(arg.message || arg) : typeof arg === "string" ? arg : "")).join(" ");
  for (const level of ["error", "warn"]) {
    const original = console[level];
    console[level] = function () {
      // The stack of the caller: the frames below this function's own.
      try { record(join(arguments), String(new Error().stack || "").split("\\n").slice(2, 7).join("\\n")); } catch {}
      return original.apply(this, arguments);
    };
    console[level].toString = () => original.toString();
  }
  addEventListener("error", (event) => { try { record(event.error instanceof Error ? event.error.message : event.message); } catch {} }, true);
  addEventListener("unhandledrejection", (event) => { try { const reason = event.reason; record(reason instanceof Error ? reason.message : String(reason)); } catch {} }, true);
  // Astro's <astro-island>: from the call of its hydrate until its astro:hydrate event, it is hydrating.
  const define = CustomElementRegistry.prototype.define;
  CustomElementRegistry.prototype.define = function (name, constructor, options) {
    if (name === "astro-island" && typeof constructor === "function") {
      start();
      const Island = constructor;
      constructor = class extends Island {
        constructor() {
          super();
          const hydrate = this.hydrate;
          if (typeof hydrate !== "function") return;
          const island = this;
          this.addEventListener("astro:hydrate", () => hydrating.delete(island));
          this.hydrate = function () {
            if (island.hasAttribute("ssr") && island.isConnected && !(island.parentElement && island.parentElement.closest("astro-island[ssr]"))) hydrating.add(island);
            const done = hydrate.apply(this, arguments);
            Promise.resolve(done).finally(() => { if (!island.hasAttribute("ssr") || !island.isConnected) hydrating.delete(island); });
            return done;
          };
        }
      };
    }
    return define.call(this, name, constructor, options);
  };
  CustomElementRegistry.prototype.define.toString = () => define.toString();
})();`;

/** What the watch noted in the page so far (its current document). */
export async function messageIslands(page: Page): Promise<MessageIslands[]> {
  return page
    .evaluate(() => {
      const notes = (
        window as unknown as Record<symbol, { text: string; hydrating: string[]; changed: Set<string>; stack?: string }[] | undefined>
      )[Symbol.for("vigie.hydrationWatch")];
      return (notes ?? []).map((note) => ({
        text: note.text,
        hydrating: note.hydrating,
        changed: [...note.changed],
        ...(note.stack ? { stack: note.stack } : {}),
      }));
    })
    .catch(() => []);
}

/** A message's first line without what the browser or Playwright add ("Uncaught ", "Error: "), for comparing. */
function keyOf(message: string): string {
  return (message.split("\n")[0] ?? "")
    .replace(/^Uncaught (?:\(in promise\) )?/, "")
    .replace(/^\w*Error: /, "")
    .trim()
    .slice(0, 60);
}

/**
 * The islands an error may come from, by what the watch noted of the same message: the one
 * island hydrating then, else the islands hydrating whose DOM changed in that turn, else those
 * whose DOM changed, else those hydrating. Empty when the watch noted nothing of it.
 */
export function candidatesOf(error: Pick<PageError, "message">, notes: readonly MessageIslands[]): string[] {
  const key = keyOf(error.message);
  if (key.length < 8) return [];
  const found = new Set<string>();
  for (const note of notes) {
    const other = keyOf(note.text);
    if (other.length < 8 || !(other.startsWith(key) || key.startsWith(other))) continue;
    for (const name of pick(note)) found.add(name);
  }
  return [...found];
}

function pick({ hydrating, changed }: MessageIslands): string[] {
  const unique = (names: string[]) => [...new Set(names)];
  if (unique(hydrating).length === 1) return unique(hydrating);
  const both = unique(hydrating.filter((name) => changed.includes(name)));
  if (both.length) return both;
  return unique(changed.length ? changed : hydrating);
}

/**
 * Gives back their place to console errors the browser placed nowhere (the watch's function
 * wrote them, on the page's behalf): the frames of the code that called it, from the watch's
 * note of the same message.
 */
export function restorePlaces(errors: PageError[], notes: readonly MessageIslands[]): void {
  for (const error of errors) {
    if (error.at || error.frames.length) continue;
    const key = keyOf(error.message);
    const note = notes.find((one) => one.stack && keyOf(one.text) === key);
    const frames = parseStack(note?.stack).filter((frame) => /^https?:/.test(frame.url));
    const [top] = frames;
    if (!top) continue;
    error.frames = frames.slice(0, 4);
    error.at = `${top.url.replace(/^https?:\/\/[^/]+/, "")}:${top.line}`;
  }
}

/** The same for console warnings, kept as lines: `text (place)` when the line names no place. */
export function restoreWarningPlaces(warnings: string[], notes: readonly MessageIslands[]): string[] {
  return warnings.map((line) => {
    if (/ \(\/[^)]*:\d+\)$/.test(line)) return line;
    const note = notes.find((one) => one.stack && keyOf(one.text) === keyOf(line));
    const top = parseStack(note?.stack).find((frame) => /^https?:/.test(frame.url));
    return top ? `${line} (${top.url.replace(/^https?:\/\/[^/]+/, "")}:${top.line})` : line;
  });
}
