// The offline server of an adapter's build output, run as a script in a process of its own
// (outputServer starts it in its own process group): it loads the build's functions and
// answers on 127.0.0.1 as the platform would. Everything the functions print, and every
// error they throw, goes to its output: the server log the causes of 5xx answers are read from.
//   node outputRunner.js '{"kind":"vercel","root":"/site","publish":"/site/dist","port":4567}'
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { netlifyServer, readNetlifyOutput } from "./netlifyOutput.ts";
import { logError, sendText } from "./outputHttp.ts";
import { readVercelOutput, vercelServer } from "./vercelOutput.ts";

export interface RunnerOptions {
  kind: "vercel" | "netlify";
  /** The project's root. */
  root: string;
  /** Netlify's publish folder (the config's outDir). */
  publish: string;
  port: number;
}

type Handler = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

async function handlerOf(options: RunnerOptions): Promise<Handler> {
  if (options.kind === "vercel") {
    const output = readVercelOutput(options.root);
    if (!output) throw new Error(".vercel/output/config.json is missing or not JSON: build the site first");
    // Vercel runs a function in its folder, which mirrors the project: with one function, here too.
    const [only, ...more] = output.functions.values();
    if (only && more.length === 0) process.chdir(only.dir);
    return vercelServer(output);
  }
  const output = readNetlifyOutput(options.root, options.publish);
  if (!output) throw new Error(".netlify/ is missing: build the site first");
  return netlifyServer(output);
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? "{}") as RunnerOptions;
  // A function's stray error must not end the server: it is logged, as the platform would.
  process.on("uncaughtException", (error) => logError(error, "uncaught"));
  process.on("unhandledRejection", (error) => logError(error, "unhandled rejection"));
  const handler = await handlerOf(options);
  const server = createServer((request, response) => {
    handler(request, response).catch((error: unknown) => {
      logError(error);
      if (!response.headersSent) sendText(response, 500, "");
      else response.destroy();
    });
  });
  server.listen(options.port, "127.0.0.1", () => console.log(`vigie output server (${options.kind}) on http://127.0.0.1:${options.port}`));
}

main().catch((error: unknown) => {
  // Its reason alone: the last lines of this output are what the caller's error shows.
  process.stderr.write(`[ERROR] the output server could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
