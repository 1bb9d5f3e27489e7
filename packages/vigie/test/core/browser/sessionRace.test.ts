// The warm browser's close and new work are ordered: a session whose idle time is tens of
// milliseconds closes its browser between almost every two checks, and checks started at
// random moments around those closes (one at a time, several at once, right after
// the browser crashed) must all succeed, with no Chromium left once the session is closed.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BrowserSession } from "../../../src/core/browser/session/session.ts";
import { commandOf, listProcesses } from "../../../src/core/process/inspect.ts";

const PAGE = "data:text/html,<title>race</title><p>hello</p>";

/** Chromium processes this test process launched (its direct children). */
function ourChromiums(): number[] {
  return listProcesses()
    .filter((stat) => stat.ppid === process.pid && /chrom/i.test(commandOf(stat.pid, 100_000) ?? ""))
    .map((stat) => stat.pid);
}

/** A small seeded generator: a failing run can be replayed with the seed it printed. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One check of each kind the tools use: a fresh context, a fresh page, a warm wiped page. */
async function check(session: BrowserSession, kind: number): Promise<string> {
  const read = async (page: import("playwright-core").Page) => {
    await page.goto(PAGE);
    return page.title();
  };
  if (kind === 0) return session.withPage((page) => read(page));
  if (kind === 1) return session.withContext(async (context) => read(await context.newPage()));
  return session.withCleanPage((page) => read(page));
}

async function until(predicate: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!predicate() && Date.now() < deadline) await sleep(25);
  return predicate();
}

const IDLE_MS = 30;
const SEED = Number(process.env.VIGIE_RACE_SEED) || Date.now() % 1_000_000;

test(`checks started around the idle close never fail (idle ${IDLE_MS} ms, seed ${SEED})`, { timeout: 240_000 }, async (t) => {
  const next = random(SEED);
  const session = new BrowserSession({ idleMs: IDLE_MS });
  const failures: string[] = [];
  let done = 0;
  const run = async (kind: number) => {
    try {
      assert.equal(await check(session, kind), "race");
      done += 1;
    } catch (error) {
      failures.push(`${["withPage", "withContext", "withCleanPage"][kind]}: ${(error as Error).message.split("\n")[0]}`);
    }
  };
  try {
    // One at a time, each after a pause drawn around the idle time: before, at and after the close.
    for (let i = 0; i < 12 && !t.signal.aborted; i += 1) {
      await sleep(next() * IDLE_MS * 3);
      await run(i % 3);
    }
    // Several at once: bursts started at random moments over a span a few idle times long.
    for (let burst = 0; burst < 5 && !t.signal.aborted; burst += 1) {
      const started: Promise<void>[] = [];
      for (let i = 0; i < 8; i += 1) started.push(sleep(next() * IDLE_MS * 4).then(() => run(Math.floor(next() * 3))));
      await Promise.all(started);
      await sleep(next() * IDLE_MS * 2);
    }
    // A browser that crashed: checks that start right after it (before or after the session
    // heard of it) are given a new browser.
    for (let crash = 0; crash < 2 && !t.signal.aborted; crash += 1) {
      await run(0);
      const pid = session.pid;
      if (pid) process.kill(pid, "SIGKILL");
      await Promise.all([run(0), run(1), run(2)]);
    }
    console.log(`# ${done} checks, ${failures.length} failed, ${session.launches} launches (seed ${SEED})`);
    assert.deepEqual(failures, [], `checks failed (seed ${SEED}):\n${failures.slice(0, 10).join("\n")}`);
    assert.ok(session.launches > 5, `the idle close ran between checks (${session.launches} launches)`);
  } finally {
    await session.close();
  }
  assert.ok(await until(() => ourChromiums().length === 0, 10_000), `Chromium left running: ${ourChromiums().join(", ")}`);
});

test("a close under way is finished before a new browser is launched, and a second close waits for the same", async () => {
  const session = new BrowserSession({ idleMs: 60_000 });
  try {
    assert.equal(await check(session, 0), "race");
    const first = session.pid;
    const closing = session.close();
    assert.equal(session.running, false, "the browser is taken away as the close starts");
    const again = session.close();
    // Work that arrives while the close runs waits for it, then gets a browser of its own.
    const [title] = await Promise.all([check(session, 2), closing, again]);
    assert.equal(title, "race");
    assert.equal(session.launches, 2);
    assert.notEqual(session.pid, first);
  } finally {
    await session.close();
  }
  assert.ok(await until(() => ourChromiums().length === 0, 10_000), `Chromium left running: ${ourChromiums().join(", ")}`);
});

test("killNow ends every Chromium the session launched, even one being closed", async () => {
  const session = new BrowserSession({ idleMs: 60_000 });
  try {
    await check(session, 0);
    const closing = session.close();
    session.killNow();
    await closing;
    assert.ok(await until(() => ourChromiums().length === 0, 10_000), `Chromium left running: ${ourChromiums().join(", ")}`);
    assert.equal(await check(session, 1), "race", "and the next check launches a new one");
  } finally {
    await session.close();
  }
});
