// vigie's server of a build, run as a script in a process of its own (outputServer.ts starts
// it): the offline server of an adapter's build output, which loads the build's functions and
// answers on 127.0.0.1 as the platform would (everything the functions print, and every error
// they throw, goes to its output: the server log the causes of 5xx answers are read from); or
// vigie's static server on a static build.
//   node outputRunner.js '{"kind":"vercel","root":"/site","publish":"/site/dist","port":4567}'
//   node outputRunner.js '{"kind":"static","dir":"/site/dist","base":"/","port":4567}'
import { createServer } from "node:http";
import { serveStatic } from "../staticServer.ts";
import { OUTPUT_PLATFORMS } from "./adapters.ts";
import { logError, sendText } from "./outputHttp.ts";
import type { RunnerOptions } from "./outputServer.ts";

async function serveOutput(options: Exclude<RunnerOptions, { kind: "static" }>): Promise<void> {
  // A function's stray error must not end the server: it is logged, as the platform would.
  process.on("uncaughtException", (error) => logError(error, "uncaught"));
  process.on("unhandledRejection", (error) => logError(error, "unhandled rejection"));
  const handler = await OUTPUT_PLATFORMS[options.kind].handler(options.root, options.publish);
  const server = createServer((request, response) => {
    handler(request, response).catch((error: unknown) => {
      logError(error);
      if (!response.headersSent) sendText(response, 500, "");
      else response.destroy();
    });
  });
  server.listen(options.port, "127.0.0.1", () => console.log(`vigie output server (${options.kind}) on http://127.0.0.1:${options.port}`));
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? "{}") as RunnerOptions;
  if (options.kind !== "static") return serveOutput(options);
  const server = await serveStatic(options.dir, { base: options.base, port: options.port });
  console.log(`vigie static server on ${server.url}${options.base ?? "/"}`);
}

main().catch((error: unknown) => {
  // Its reason alone: the last lines of this output are what the caller's error shows.
  process.stderr.write(`[ERROR] the output server could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
