// Who listens on a TCP port: a bind test for "can the server have it", and
// /proc/net/tcp{,6} plus /proc/<pid>/fd for "who holds it".
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { commandOf, socketOwners } from "./proc.ts";

export const LOOPBACK = "127.0.0.1";

/** True when a server could listen on 127.0.0.1:port right now. */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: LOOPBACK, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

const LISTEN = "0A";

/** Inodes of the sockets listening on this port, on any address, IPv4 or IPv6. */
export function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const columns = line.trim().split(/\s+/);
      const local = columns[1];
      if (!local || columns[3] !== LISTEN) continue;
      if (Number.parseInt(local.slice(local.lastIndexOf(":") + 1), 16) === port && columns[9]) inodes.add(columns[9]);
    }
  }
  return inodes;
}

export interface PortHolder {
  pid?: number;
  command?: string;
}

/** Who listens on the port, as far as /proc lets us see; undefined when nobody does. */
export function portHolder(port: number): PortHolder | undefined {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return undefined;
  const pid = socketOwners(inodes)[0];
  if (pid === undefined) return {};
  return { pid, command: commandOf(pid, 120) };
}

/** Does one of these processes hold a listening socket on the port? */
export function isListeningFrom(port: number, pids: readonly number[]): boolean {
  return socketOwners(listeningInodes(port), pids).length > 0;
}

/** "pid 123 (node server.js)", or what can be said without /proc access. */
export function describeHolder(holder: PortHolder | undefined): string {
  if (!holder?.pid) return "a process this user cannot inspect";
  return `pid ${holder.pid}${holder.command ? ` (${holder.command})` : ""}`;
}
