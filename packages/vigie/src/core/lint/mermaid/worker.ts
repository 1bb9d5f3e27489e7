// A worker thread that keeps jsdom and the project's mermaid loaded and parses
// diagrams with mermaid's own parser. Flowcharts need a DOM (DOMPurify needs
// `window`): the jsdom globals live in this thread only, not in the host process.
import { parentPort, workerData } from "node:worker_threads";
import { JSDOM } from "jsdom";

export interface ParseRequest {
  id: number;
  texts: string[];
}

export type DiagramVerdict = { ok: true; type: string } | { ok: false; message: string; line?: number };

export type WorkerMessage = { ready: true; version?: string } | { startError: string } | { id: number; verdicts: DiagramVerdict[] };

interface Mermaid {
  initialize(config: Record<string, unknown>): void;
  parse(text: string): Promise<{ diagramType: string } | false>;
}

interface ParserError {
  message?: unknown;
  hash?: { line?: number; loc?: { first_line?: number } };
}

const port = parentPort;
if (!port) throw new Error("the mermaid worker runs in a worker thread");

function installDom(): void {
  const dom = new JSDOM("<!doctype html><html><body></body></html>", { pretendToBeVisual: true });
  const scope = globalThis as Record<string, unknown>;
  const window = dom.window as unknown as Record<string, unknown>;
  scope.window = dom.window;
  scope.document = dom.window.document;
  for (const name of [
    "Element",
    "HTMLElement",
    "SVGElement",
    "DOMParser",
    "Node",
    "getComputedStyle",
    "MutationObserver",
    "requestAnimationFrame",
  ]) {
    if (!(name in scope)) scope[name] = window[name];
  }
}

function lineOf(error: ParserError, message: string): number | undefined {
  const fromLoc = error.hash?.loc?.first_line;
  if (typeof fromLoc === "number") return fromLoc;
  if (typeof error.hash?.line === "number") return error.hash.line + 1;
  const fromText = /\bline:? (\d+)/i.exec(message)?.[1];
  return fromText ? Number(fromText) : undefined;
}

async function verdict(mermaid: Mermaid, text: string): Promise<DiagramVerdict> {
  try {
    const result = await mermaid.parse(text);
    return { ok: true, type: result ? result.diagramType : "unknown" };
  } catch (error) {
    const parserError = error as ParserError;
    const message = typeof parserError?.message === "string" ? parserError.message : String(error);
    return { ok: false, message, line: lineOf(parserError, message) };
  }
}

try {
  installDom();
  const url = (workerData as { mermaidUrl?: string } | undefined)?.mermaidUrl ?? "mermaid";
  const { default: mermaid } = (await import(url)) as { default: Mermaid };
  mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });
  port.postMessage({ ready: true, version: (mermaid as { version?: string }).version } satisfies WorkerMessage);
  // Requests are served in turn, never interleaved: mermaid keeps parser state between calls.
  let queue = Promise.resolve();
  port.on("message", (request: ParseRequest) => {
    queue = queue.then(async () => {
      const verdicts: DiagramVerdict[] = [];
      for (const text of request.texts) verdicts.push(await verdict(mermaid, text));
      port.postMessage({ id: request.id, verdicts } satisfies WorkerMessage);
    });
  });
} catch (error) {
  port.postMessage({ startError: error instanceof Error ? error.message : String(error) } satisfies WorkerMessage);
}
