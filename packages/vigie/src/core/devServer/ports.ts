// Who listens on a TCP port: a bind test for "can the server have it", and the process
// backend (/proc/net/tcp{,6} and /proc/<pid>/fd on Linux, lsof elsewhere) for "who holds it".
import { createServer } from "node:net";
import { commandOf, processBackend, socketOwners } from "../process/inspect.ts";

export const LOOPBACK = "127.0.0.1";

/** True when a server could listen on 127.0.0.1:port right now. */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: LOOPBACK, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Opaque ids of the sockets listening on this port, on any address, IPv4 or IPv6: socket
 * inodes with /proc, "pid/fd" with lsof. Empty when nobody listens (as far as we can see).
 */
export function listeningInodes(port: number): Set<string> {
  return processBackend().listeners(port);
}

export interface PortHolder {
  pid?: number;
  command?: string;
}

/** Who listens on the port, as far as the backend lets us see; undefined when nobody does. */
export function portHolder(port: number): PortHolder | undefined {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return undefined;
  const pid = socketOwners(inodes)[0];
  if (pid === undefined) return {};
  return { pid, command: commandOf(pid, 120) };
}

/** Does one of these processes hold a listening socket on the port? */
export function isListeningFrom(port: number, pids: readonly number[]): boolean {
  if (pids.length === 0) return false;
  return socketOwners(listeningInodes(port), pids).length > 0;
}

/** "pid 123 (node server.js)", or what can be said without access to the holder. */
export function describeHolder(holder: PortHolder | undefined): string {
  if (!holder?.pid) return "a process this user cannot inspect";
  return `pid ${holder.pid}${holder.command ? ` (${holder.command})` : ""}`;
}
