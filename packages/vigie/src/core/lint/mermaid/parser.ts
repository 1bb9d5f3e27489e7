// The host side of the mermaid worker: started once per mermaid installation, kept
// warm between lints (unref'd while idle, so it never holds the process open), and a
// cache of verdicts by diagram text.
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { DiagramVerdict, WorkerMessage } from "./worker.ts";

export type { DiagramVerdict };

interface Pending {
  resolve(verdicts: DiagramVerdict[]): void;
  reject(error: Error): void;
}

interface Parser {
  worker: Worker;
  ready: Promise<void>;
  pending: Map<number, Pending>;
  cache: Map<string, DiagramVerdict>;
  nextId: number;
}

const parsers = new Map<string, Parser>();

export class MermaidUnavailableError extends Error {}

/** The project's own mermaid (the version its pages load), as an import URL. */
export function resolveMermaid(root: string): string {
  try {
    return pathToFileURL(createRequire(join(root, "package.json")).resolve("mermaid")).href;
  } catch {
    throw new MermaidUnavailableError("mermaid is not installed in the project");
  }
}

function start(mermaidUrl: string): Parser {
  // The worker inherits the host's flags; those that say how the host's own code was given (-e, --input-type) make it fail.
  const inherited = process.execArgv.some((flag) => /^(--input-type|--eval|-e|--print|-p)(=|$)/.test(flag));
  // Compiled into dist/, this file is parser.js and its worker worker.js.
  const worker = new Worker(new URL(import.meta.url.endsWith(".ts") ? "./worker.ts" : "./worker.js", import.meta.url), {
    workerData: { mermaidUrl },
    ...(inherited ? { execArgv: [] } : {}),
  });
  worker.unref();
  const pending = new Map<number, Pending>();
  const parser: Parser = { worker, pending, cache: new Map(), nextId: 1, ready: Promise.resolve() };
  const fail = (error: Error) => {
    parsers.delete(mermaidUrl);
    for (const request of pending.values()) request.reject(error);
    pending.clear();
  };
  parser.ready = new Promise<void>((resolve, reject) => {
    worker.on("message", (message: WorkerMessage) => {
      if ("ready" in message) resolve();
      else if ("startError" in message) {
        const error = new MermaidUnavailableError(`mermaid could not be loaded: ${message.startError}`);
        reject(error);
        fail(error);
        void worker.terminate();
      } else {
        pending.get(message.id)?.resolve(message.verdicts);
        pending.delete(message.id);
        if (pending.size === 0) worker.unref();
      }
    });
    worker.on("error", (error) => {
      reject(error);
      fail(error);
    });
    worker.on("exit", (code) => {
      const error = new Error(`the mermaid worker exited (${code})`);
      reject(error);
      fail(error);
    });
  });
  // Nobody may be waiting on `ready` yet; its failure is reported through the requests.
  parser.ready.catch(() => {});
  return parser;
}

/** Parses diagrams with mermaid's own parser; verdicts in the order of `texts`. */
export async function parseDiagrams(root: string, texts: string[]): Promise<DiagramVerdict[]> {
  const mermaidUrl = resolveMermaid(root);
  let parser = parsers.get(mermaidUrl);
  if (!parser) {
    parser = start(mermaidUrl);
    parsers.set(mermaidUrl, parser);
  }
  const todo = [...new Set(texts.filter((text) => !parser.cache.has(text)))];
  if (todo.length > 0) {
    const current = parser;
    current.worker.ref();
    try {
      await current.ready;
      const id = current.nextId++;
      const verdicts = await new Promise<DiagramVerdict[]>((resolve, reject) => {
        current.pending.set(id, { resolve, reject });
        current.worker.postMessage({ id, texts: todo });
      });
      for (const [index, text] of todo.entries()) {
        const verdict = verdicts[index];
        if (verdict) current.cache.set(text, verdict);
      }
    } finally {
      if (current.pending.size === 0) current.worker.unref();
    }
  }
  return texts.map((text) => parser.cache.get(text) ?? { ok: false, message: "not parsed" });
}

/** Forgets every verdict (the parsers stay warm): the next lint parses each diagram again. */
export function clearMermaidCache(): void {
  for (const parser of parsers.values()) parser.cache.clear();
}

/** Stops the workers (tests, benchmarks, shutdown). */
export async function closeMermaidParsers(): Promise<void> {
  const all = [...parsers.values()];
  parsers.clear();
  await Promise.all(all.map((parser) => parser.worker.terminate()));
}
