// What one client (an MCP connection, an OpenCode process) started, so that nothing of it
// outlives the client: the dev servers its blog_dev_start calls started are stopped when it
// disconnects or exits. A server that was running before (someone's `astro dev`, another
// client's, the CLI's) is never this session's, and is left running.

import { readRecord } from "../core/devServer/state.ts";
import { signalGroup } from "../core/process/kill.ts";
import type { Project } from "../core/project.ts";

interface Started {
  project: Project;
  /** The server's pid as blog_dev_start answered it (the leader of its own process group). */
  pid: number;
}

/** The pid the project's server runs under now, if any (vigie's record, else Astro's lock). */
async function runningPid(project: Project): Promise<number | undefined> {
  const record = readRecord(project);
  if (record) return record.pid;
  const { findAstroServer } = await import("../core/devServer/astroLock.ts");
  const astro = findAstroServer(project);
  return astro.kind === "live" ? astro.server.pid : undefined;
}

export class ClientSession {
  readonly #started = new Map<string, Started>();

  /** How answers name the client: "this MCP session", "this OpenCode process". */
  readonly name: string;

  constructor(name: string) {
    this.name = name;
  }

  /** A server this session's start call started. */
  started(project: Project, pid: number): void {
    this.#started.set(project.root, { project, pid });
  }

  /** The server of `project` is stopped (or another one runs): not this session's any more. */
  forget(project: Project): void {
    this.#started.delete(project.root);
  }

  /** The server with `pid` in `project` is one this session started. */
  owns(project: Project, pid: number | undefined): boolean {
    return pid !== undefined && this.#started.get(project.root)?.pid === pid;
  }

  /** The projects whose server this session started and has not stopped. */
  get projects(): string[] {
    return [...this.#started.keys()];
  }

  /**
   * Stops each server this session started that still runs under the same pid (one started
   * since by someone else is left alone). Never throws; says what it stopped.
   */
  async close(graceMs = 3000): Promise<string[]> {
    const stopped: string[] = [];
    for (const { project, pid } of this.#started.values()) {
      try {
        if ((await runningPid(project)) !== pid) continue;
        const { stopDevServer } = await import("../core/devServer/stop.ts");
        const result = await stopDevServer(project, { graceMs });
        if (result.kind === "stopped") stopped.push(`${project.root} (pid ${pid})`);
      } catch {
        // gone already, or stuck: nothing more a closing client can do
      }
    }
    this.#started.clear();
    return stopped;
  }

  /**
   * For a process that is exiting and cannot wait: SIGTERM to the process group of each
   * server this session started, when the project's record still names it.
   */
  closeNow(): void {
    for (const { project, pid } of this.#started.values()) {
      if (readRecord(project)?.pid !== pid) continue;
      try {
        signalGroup(pid, "SIGTERM");
      } catch {
        // not ours to signal any more: nothing else to do at exit
      }
    }
    this.#started.clear();
  }
}
