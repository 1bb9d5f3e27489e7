// How long work says where it is: pages done of the total, the failing ones so far, and the
// time left at the pace so far. The same words in a terminal, in CI logs and in an MCP
// client's progress notifications.

/** Seconds left at the pace so far, once enough is done to tell (undefined before). */
export function secondsLeft(startedMs: number, done: number, total: number, now = Date.now()): number | undefined {
  if (done < 2 || total <= done) return total <= done ? 0 : undefined;
  return Math.ceil((((now - startedMs) / done) * (total - done)) / 1000);
}

/** "crawl 34/80 pages, 2 failing, about 21 s left". */
export function pagesLine(what: string, done: number, total: number, failing: number, left: number | undefined): string {
  const failed = failing ? `, ${failing} failing` : "";
  const time = left === undefined || left === 0 ? "" : `, about ${left} s left`;
  return `${what} ${done}/${total} pages${failed}${time}`;
}
