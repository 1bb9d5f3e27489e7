import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { describe, test } from "node:test";
import { checkPage } from "../../../src/core/browser/page/watch.ts";
import { BrowserSession } from "../../../src/core/browser/session/session.ts";
import { BLOG_ROOT } from "../../support/blog.ts";

const PAGE = "data:text/html,<title>session</title><p>hello</p>";
const CHILD = join(import.meta.dirname, "..", "..", "support", "browser-child.ts");

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, withinMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return !alive(pid);
}

const title = (session: BrowserSession) => session.withContext(async (context) => (await checkPage(await context.newPage(), PAGE)).title);

test("one warm Chromium serves many checks, each in a fresh context", async () => {
  const session = new BrowserSession();
  try {
    const contexts = new Set<unknown>();
    for (let i = 0; i < 5; i += 1) {
      await session.withPage(async (page, context) => {
        contexts.add(context);
        assert.deepEqual(context.pages(), [page], "a fresh context, with only this check's page");
        assert.equal(page.url(), "about:blank", "nothing of an earlier check");
        await checkPage(page, PAGE);
      });
    }
    assert.equal(session.launches, 1);
    assert.equal(contexts.size, 5);
    // Parallel checks share the browser too.
    await Promise.all([title(session), title(session), title(session)]);
    assert.equal(session.launches, 1);
  } finally {
    await session.close();
  }
});

test("warm() launches ahead of a check, which then finds the browser and its page ready; close() ends it all", async () => {
  const session = new BrowserSession({ idleMs: 5000 });
  try {
    session.warm();
    const deadline = Date.now() + 30_000;
    while (!session.running && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(session.running, "launched without a check");
    assert.equal(await title(session), "session");
    assert.equal(session.launches, 1);
    const pid = session.pid as number;
    await session.close();
    assert.ok(await gone(pid), "nothing left once closed");
  } finally {
    await session.close();
  }
});

test("a crashed browser is relaunched on the next call", async () => {
  const session = new BrowserSession();
  try {
    assert.equal(await title(session), "session");
    const pid = session.pid;
    assert.ok(pid);
    process.kill(pid, "SIGKILL");
    assert.ok(await gone(pid));
    assert.equal(await title(session), "session");
    assert.equal(session.launches, 2);
    assert.notEqual(session.pid, pid);
  } finally {
    await session.close();
  }
});

test("an idle browser is closed after the idle period", async () => {
  const session = new BrowserSession({ idleMs: 300 });
  try {
    await title(session);
    const pid = session.pid;
    assert.ok(pid && alive(pid));
    assert.ok(await gone(pid, 5000), "closed when idle");
    assert.equal(session.running, false);
    assert.equal(await title(session), "session", "and launched again when needed");
  } finally {
    await session.close();
  }
});

async function runChild(runtime: string[], how: string, signal?: NodeJS.Signals) {
  const child = spawn(runtime[0] ?? process.execPath, [...runtime.slice(1), CHILD, how], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  try {
    while (!stdout.includes("\n")) {
      if (child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const line = JSON.parse(stdout.split("\n")[0] ?? "{}") as { pid: number; title: string; runtime: string };
    if (signal) child.kill(signal);
    if (child.exitCode === null) {
      const exited = await Promise.race([
        once(child, "exit").then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), 20_000)),
      ]);
      assert.ok(exited, `the process did not end (${how}${signal ? `, ${signal}` : ""})`);
    }
    return line;
  } finally {
    child.kill("SIGKILL");
  }
}

// Six processes of their own, independent of one another: side by side.
describe("no Chromium outlives its process", { concurrency: true }, () => {
  for (const [how, signal] of [
    ["exit", undefined],
    ["close", undefined],
    ["throw", undefined],
    ["wait", "SIGTERM"],
    ["wait", "SIGINT"],
    ["wait", "SIGKILL"],
  ] as const) {
    test(
      signal
        ? `killed with ${signal}`
        : { exit: "exits without closing", close: "closes the session", throw: "dies of an exception", wait: "" }[how],
      async () => {
        const child = await runChild([process.execPath], how, signal);
        assert.equal(child.title, "child");
        assert.ok(child.pid > 0);
        assert.ok(await gone(child.pid), `Chromium ${child.pid} still runs after its process ended`);
      },
    );
  }
});

test("the session works under Bun, the runtime OpenCode runs tools in", async () => {
  const bun = join(BLOG_ROOT, "node_modules", ".bin", "bun");
  const child = await runChild([bun, "run"], "close");
  assert.deepEqual([child.runtime, child.title], ["bun", "child"]);
  assert.ok(await gone(child.pid));
});
