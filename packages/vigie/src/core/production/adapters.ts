// The one table of how a site's build is served, by adapter: no adapter (a static build),
// the adapters vigie knows (@astrojs/node, cloudflare, vercel, netlify), and any other. For
// each: the server of its build (vigie's static server, the adapter's own `astro preview`,
// vigie's offline server of its build output, or none: the dev server), the folder that
// server needs, where its prerendered pages and server bundle are. And, for the build outputs
// vigie serves itself, what each platform's server is made of. Every caller that asks "how is
// this build served" reads it here (servePlan.ts, astro/rendering.ts, the output runner).
import type { IncomingMessage, ServerResponse } from "node:http";
import { join, relative } from "node:path";
import { netlifyNotes, netlifyServer, readNetlifyOutput } from "./netlifyOutput.ts";
import { readVercelOutput, vercelNotes, vercelServer } from "./vercelOutput.ts";

/**
 * How a build is served: vigie's static server, the adapter's own server (`astro preview`),
 * vigie's offline server of the adapter's build output (Vercel, Netlify), or none (the dev
 * server, for an adapter vigie does not know).
 */
export type ServeMode = "static" | "preview" | "output" | "dev";

/** The platforms whose build output vigie serves itself (ServeMode "output"). */
export type OutputKind = "vercel" | "netlify";

/** How one adapter's build is served. Folders are relative to the root, the config's outDir written "{outDir}". */
export interface AdapterServing {
  serve: ServeMode;
  /** With serve "output": whose build output it is. */
  output?: OutputKind;
  /** The folder a build must have written for its server to start. */
  needs: string;
  /** The prerendered HTML and the build's assets. */
  staticDir: string;
  /** Where its server bundle is (its route list is read there). */
  serverDirs: string[];
  /** The folders its build writes besides outDir. */
  buildDirs: string[];
}

/** A static build (no adapter): vigie's static server on outDir. */
export const NO_ADAPTER: AdapterServing = { serve: "static", needs: "{outDir}", staticDir: "{outDir}", serverDirs: [], buildDirs: [] };

/** An adapter vigie does not know: its build is not served, its pages are checked on the dev server. */
export const UNKNOWN_ADAPTER: AdapterServing = {
  serve: "dev",
  needs: "{outDir}",
  staticDir: "{outDir}/client",
  serverDirs: ["{outDir}/server"],
  buildDirs: [],
};

export const ADAPTERS: Readonly<Record<string, AdapterServing>> = {
  "@astrojs/node": { serve: "preview", needs: "{outDir}", staticDir: "{outDir}/client", serverDirs: ["{outDir}/server"], buildDirs: [] },
  "@astrojs/cloudflare": {
    serve: "preview",
    needs: "{outDir}",
    staticDir: "{outDir}/client",
    serverDirs: ["{outDir}/server"],
    buildDirs: [],
  },
  "@astrojs/vercel": {
    serve: "output",
    output: "vercel",
    needs: ".vercel/output",
    staticDir: ".vercel/output/static",
    serverDirs: [".vercel/output/functions"],
    buildDirs: [".vercel/output"],
  },
  "@astrojs/netlify": {
    serve: "output",
    output: "netlify",
    needs: "{outDir}",
    staticDir: "{outDir}",
    serverDirs: [".netlify/v1/functions", ".netlify/build"],
    buildDirs: [".netlify"],
  },
};

/** The table's line for the config's adapter (its module: "@astrojs/node"), none for a static build. */
export function adapterServing(adapter: string | undefined): AdapterServing {
  if (!adapter) return NO_ADAPTER;
  return ADAPTERS[adapter] ?? UNKNOWN_ADAPTER;
}

/** A folder of the table, absolute: "{outDir}" replaced by the config's outDir (absolute too). */
export function servingDir(root: string, outDir: string, path: string): string {
  return join(root, path.replace("{outDir}", relative(root, outDir) || "."));
}

/** A request handler of an output server. */
export type OutputHandler = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

/** vigie's offline server of one platform's build output. */
export interface OutputPlatform {
  /** Its name in messages. */
  label: string;
  /** Where its build output is, in messages. */
  where: string;
  /** What of the deployed site this server does not do, from the last build's output. */
  notes(root: string, publish: string): string[];
  /** The handler on the last build's output, in the runner's process; throws without a build. */
  handler(root: string, publish: string): Promise<OutputHandler>;
}

export const OUTPUT_PLATFORMS: Readonly<Record<OutputKind, OutputPlatform>> = {
  vercel: {
    label: "Vercel",
    where: ".vercel/output",
    notes: (root) => {
      const output = readVercelOutput(root);
      return output ? vercelNotes(output) : [];
    },
    handler: async (root) => {
      const output = readVercelOutput(root);
      if (!output) throw new Error(".vercel/output/config.json is missing or not JSON: build the site first");
      // Vercel runs a function in its folder, which mirrors the project: with one function, here too.
      const [only, ...more] = output.functions.values();
      if (only && more.length === 0) process.chdir(only.dir);
      return vercelServer(output);
    },
  },
  netlify: {
    label: "Netlify",
    where: ".netlify/ and the publish folder",
    notes: (root, publish) => {
      const output = readNetlifyOutput(root, publish);
      return output ? netlifyNotes(output) : [];
    },
    handler: async (root, publish) => {
      const output = readNetlifyOutput(root, publish);
      if (!output) throw new Error(".netlify/ is missing: build the site first");
      return netlifyServer(output);
    },
  },
};
