// vigie's own version, read once from its package.json (two folders up from src/core/ and from dist/core/).
import { readFileSync } from "node:fs";

const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

/** The version of this vigie: what `vigie --version` prints and the MCP server gives as its own. */
export const VIGIE_VERSION = manifest.version;
