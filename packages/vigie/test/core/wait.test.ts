import assert from "node:assert/strict";
import { test } from "node:test";
import { sleep, waitUntil, withTimeout } from "../../src/core/wait.ts";

test("waitUntil: the first truthy value, asked again until it comes", async () => {
  let calls = 0;
  const value = await waitUntil(() => (++calls >= 3 ? { port: 4321 } : undefined), { timeoutMs: 5000, intervalMs: 1 });
  assert.deepEqual(value, { port: 4321 });
  assert.equal(calls, 3);
  assert.equal(await waitUntil(async () => "now", { timeoutMs: 0 }), "now", "asked at once, before any pause");
});

test("waitUntil: undefined once the timeout passed, the predicate asked at least twice", async () => {
  let calls = 0;
  const value = await waitUntil(
    () => {
      calls += 1;
      return false;
    },
    { timeoutMs: 50, intervalMs: () => 10 },
  );
  assert.equal(value, undefined);
  assert.ok(calls >= 2);
});

test("waitUntil and sleep: cancellation rejects with the signal's reason", async () => {
  const controller = new AbortController();
  const waiting = waitUntil(() => false, { timeoutMs: 60_000, intervalMs: 10, signal: controller.signal });
  controller.abort(new Error("cancelled by the caller"));
  await assert.rejects(waiting, /cancelled by the caller/);
  await assert.rejects(sleep(60_000, { signal: controller.signal }), /cancelled by the caller/);
  await sleep(1, { unref: true });
});

test("withTimeout: the work's value in time; after the timeout, a rejection and the clean-up started", async () => {
  assert.equal(await withTimeout(Promise.resolve(7), 1000, async () => undefined), 7);
  let cleaned = false;
  const never = new Promise<number>(() => undefined);
  await assert.rejects(
    withTimeout(never, 20, async () => {
      cleaned = true;
    }),
    /did not finish within 0 s/,
  );
  assert.equal(cleaned, true);
  // The abandoned work failing later must not become an unhandled rejection.
  const late = Promise.reject(new Error("late"));
  await assert.rejects(
    withTimeout(late, 1000, async () => undefined),
    /late/,
  );
});
