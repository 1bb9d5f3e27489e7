// A process that uses the shared browser session, prints its Chromium's pid, then ends
// the way the first argument says: "exit" (process.exit without closing anything),
// "close" (closes the session and returns), "wait" (waits to be signalled), or "throw"
// (an uncaught exception).

import { checkPage } from "../../src/core/browser/page/watch.ts";
import { sharedSession } from "../../src/core/browser/session/session.ts";

const how = process.argv[2] ?? "exit";
const session = sharedSession();
const findings = await session.withContext(async (context) =>
  checkPage(await context.newPage(), "data:text/html,<title>child</title><p>hello</p>"),
);
process.stdout.write(
  `${JSON.stringify({ pid: session.pid, title: findings.title, runtime: typeof (globalThis as { Bun?: unknown }).Bun === "undefined" ? "node" : "bun" })}\n`,
);
if (how === "exit") process.exit(0);
if (how === "close") await session.close();
if (how === "wait") setInterval(() => undefined, 1000);
if (how === "throw") throw new Error("the process fails on purpose");
