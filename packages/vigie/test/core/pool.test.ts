// The core's one worker pool: at most `size` tasks at once, a queue the tasks may grow, a stop.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { eachAtMost, runPool } from "../../src/core/pool.ts";
import { sleep } from "../../src/core/wait.ts";

describe("worker pool", () => {
  test("every item once, never more than `size` at once", async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await eachAtMost([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      running += 1;
      most = Math.max(most, running);
      await sleep(5 + (item % 3) * 5);
      done.push(item);
      running -= 1;
    });
    assert.deepEqual(
      done.sort((a, b) => a - b),
      [1, 2, 3, 4, 5, 6, 7],
    );
    assert.equal(most, 3);
  });

  test("items added by a task under way are taken by the idle workers", async () => {
    const queue = ["/"];
    const seen: string[] = [];
    const opened: number[] = [];
    await runPool({
      size: 4,
      take: () => queue.shift(),
      open: () => {
        opened.push(opened.length);
        return { worker: opened.length };
      },
      task: async (path, state) => {
        assert.ok(state.worker >= 1);
        seen.push(path);
        await sleep(10);
        if (path === "/") queue.push("/a/", "/b/");
        if (path === "/a/") queue.push("/a/1/");
      },
    });
    assert.deepEqual(seen.sort(), ["/", "/a/", "/a/1/", "/b/"]);
    assert.equal(opened.length, 4);
  });

  test("once the signal is aborted, no item is taken", async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    await eachAtMost(
      [1, 2, 3, 4, 5],
      1,
      async (item) => {
        seen.push(item);
        if (item === 2) controller.abort();
      },
      controller.signal,
    );
    assert.deepEqual(seen, [1, 2]);
  });

  test("no item: ends at once", async () => {
    await eachAtMost([], 4, async () => assert.fail("no task"));
  });
});
