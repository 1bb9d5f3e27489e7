// When is the server ready? When its log prints the `Local http://...` line (which also
// gives the port it really took), or when the asked port answers HTTP from a socket of
// its process group, whichever comes first. Both are checked every pollMs() (25 ms with
// /proc): a fixed short interval, no back-off, so start returns soon after the server is up.
import { closeSync, openSync, readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { groupMembers, isLive, pollMs, readProcStat } from "../process/inspect.ts";
import { sleep } from "../wait.ts";
import { isListeningFrom } from "./ports.ts";
import { answersHttp } from "./request.ts";

const PROBE_TIMEOUT_MS = 2000;

/** Astro's and Vite's ready line; the lookahead makes sure the port number is complete. */
const LOCAL_LINE = /Local:?\s+(https?:\/\/(?:\[[^\]\s]+\]|[^\s/:]+):(\d+))(?=[/\s])/;

export function parseLocalLine(text: string): { url: string; port: number } | undefined {
  const match = LOCAL_LINE.exec(text);
  if (!match?.[1] || !match[2]) return undefined;
  return { url: `${match[1]}/`, port: Number(match[2]) };
}

export type ReadyOutcome =
  | { kind: "ready"; port: number; url: string; via: "log" | "http" }
  | { kind: "exited" }
  | { kind: "timeout" }
  | { kind: "aborted" };

export interface ReadyWatch {
  logPath: string;
  /** The group leader and its start time: the server is gone when it and its whole group are. */
  pid: number;
  pgid: number;
  startTime: number;
  /** The port to probe over HTTP (the asked one). */
  probePort: number;
  deadline: number;
  signal?: AbortSignal;
  /** Settles when the leader exits, when this process spawned it (faster than /proc). */
  exited?: Promise<unknown>;
}

function serverGone(watch: ReadyWatch): boolean {
  const leader = readProcStat(watch.pid);
  if (isLive(leader) && leader.startTime === watch.startTime) return false;
  return groupMembers(watch.pgid).length === 0;
}

/** Reads the log as it grows, from the start, keeping what has not been matched yet. */
class LogFollower {
  private offset = 0;
  private pending = "";
  /** Keeps a character split between two reads whole. */
  private readonly decoder = new StringDecoder("utf8");
  private readonly path: string;
  constructor(path: string) {
    this.path = path;
  }

  /** New text since the last call, joined to the unfinished line before it. */
  read(): string {
    let fd: number;
    try {
      fd = openSync(this.path, "r");
    } catch {
      return this.pending;
    }
    try {
      const buffer = Buffer.alloc(64 * 1024);
      for (;;) {
        const n = readSync(fd, buffer, 0, buffer.length, this.offset);
        if (n === 0) break;
        this.offset += n;
        this.pending += this.decoder.write(buffer.subarray(0, n));
      }
    } finally {
      closeSync(fd);
    }
    // Keep only the last (maybe unfinished) line for the next round.
    const text = this.pending;
    this.pending = text.slice(text.lastIndexOf("\n") + 1);
    return text;
  }
}

export async function waitUntilReady(watch: ReadyWatch): Promise<ReadyOutcome> {
  const log = new LogFollower(watch.logPath);
  let exited = false;
  const wakers: Promise<unknown>[] = [];
  if (watch.exited) {
    wakers.push(
      watch.exited.then(() => {
        exited = true;
      }),
    );
  }
  // One probe at a time; a refused connection waits for the next round, an answer wakes the loop at once.
  let probing = false;
  let answered = false;
  let wakeOnAnswer: () => void = () => {};
  const probeAbort = new AbortController();
  try {
    for (;;) {
      const local = parseLocalLine(log.read());
      if (local) return { kind: "ready", port: local.port, url: local.url, via: "log" };
      if (answered) {
        // Something answered on the asked port: ours only if a socket of our group listens there.
        answered = false;
        if (isListeningFrom(watch.probePort, groupMembers(watch.pgid))) {
          return { kind: "ready", port: watch.probePort, url: `http://127.0.0.1:${watch.probePort}/`, via: "http" };
        }
      }
      if (exited || serverGone(watch)) return { kind: "exited" };
      if (watch.signal?.aborted) return { kind: "aborted" };
      if (Date.now() >= watch.deadline) return { kind: "timeout" };
      if (!probing) {
        probing = true;
        void answersHttp(watch.probePort, PROBE_TIMEOUT_MS, probeAbort.signal).then((status) => {
          probing = false;
          if (status !== undefined) {
            answered = true;
            wakeOnAnswer();
          }
        });
      }
      const answer = new Promise<void>((resolve) => {
        wakeOnAnswer = resolve;
      });
      await Promise.race([sleep(pollMs()), answer, ...wakers]);
    }
  } finally {
    probeAbort.abort();
  }
}
