// The messages of vigie's dev endpoint (DEV_CHANGES_ROUTE, "/__vigie/dev"), in one definition:
// the dev integration (vigie-dev.mjs, plain JavaScript run inside the project's Astro) answers
// them and is checked against these types through its JSDoc; the core's clients read them.

/** One route as the integration lists it (from Astro's `astro:routes:resolved`). */
export interface DevRoute {
  pattern: string;
  /** The route's regular expression's source. */
  regex: string;
  /** Its page component, relative to the root (src/pages/...). */
  entrypoint: string;
  /** "page", "endpoint", "redirect"... */
  type: string;
  params: string[];
  prerender?: boolean;
}

/** What one file reaches in the module graph. */
export interface FileReach {
  /** A content entry: its pages are those that render it (by slug). */
  content?: boolean;
  /** Whether the graph has the file at all (a page using it was rendered since the server started). */
  known?: boolean;
  /** The page components (src/pages/...) its importers lead to. */
  pages: string[];
  /** The content entries that import it (a component in an MDX article): their pages only. */
  entries?: string[];
}

/** What each file reaches, by file (relative to the root). */
export type Reached = Record<string, FileReach>;

/** The last thing the server told its browsers: an HMR update, a full reload, or an error for the overlay. */
export interface DevEvent {
  seq: number;
  /** When it was told (ms since the epoch). */
  at: number;
  /** restarted: the server was made again in its process (its config changed). */
  kind: "hmr" | "full-reload" | "error" | "restarted";
  /** hmr: the first files updated. */
  files?: string[];
  /** full-reload: the page reloaded, when one is named. */
  path?: string;
  /** error: its first line. */
  message?: string;
  /** error: where, as file:line relative to the root. */
  file?: string;
}

/** GET /__vigie/dev?since=N: the files the watcher saw change after sequence number N, and what each reaches. */
export interface DevChangesAnswer {
  /** The last sequence number given (a change or an event). */
  seq: number;
  /** The sequence number of the last change seen (0: none). */
  lastChangeSeq: number;
  /** The files changed after `since`, each once. */
  changed: string[];
  reached: Reached;
  /** The last event, when it came after `since`. */
  last?: DevEvent;
  /** Errors the server logged while it rendered a page, after `since` (the page got a 200 cut short). */
  renderErrors?: RenderError[];
  routes: DevRoute[];
}

/** An error the server logged while it rendered a page. */
export interface RenderError {
  seq: number;
  /** The URL path of the request it was rendering. */
  path: string;
  message: string;
  /** The first frame in the project, as file:line relative to the root. */
  file?: string;
}

/** GET /__vigie/dev/reach?files=a,b: what the given files reach now. */
export interface DevReachAnswer {
  reached: Reached;
  routes: DevRoute[];
  /** The URL paths of the pages the server rendered since it started. */
  rendered: string[];
}

/** One type error from the warm checker. */
export interface DevTypeError {
  /** file:line, relative to the root. */
  source: string;
  message: string;
}

/** GET /__vigie/dev/types?files=a,b: the type errors of those files, or why the checker could not say. */
export type DevTypesAnswer = { errors: DevTypeError[]; ms?: number } | { unavailable: string };
