// What the system says about a process, and how one kind of system is asked it: the types the
// two backends (/proc, ps) implement and inspect.ts chooses between.

export interface ProcStat {
  pid: number;
  /** R, S, D, Z (zombie: dead, not yet reaped), T, X... */
  state: string;
  ppid: number;
  pgid: number;
  /**
   * When the process started, in the backend's unit: clock ticks after boot (/proc), epoch
   * seconds (ps). With the boot id and the pid it names one process for good.
   */
  startTime: number;
}

/** How one kind of system is asked about processes and listening sockets. */
export interface ProcessBackend {
  readonly name: "proc" | "ps";
  /** Why this backend cannot work here, or undefined when it can. */
  unusable(): string | undefined;
  /** One process, or undefined when there is no such process. */
  stat(pid: number): ProcStat | undefined;
  /** Every process this user can see (one snapshot). */
  list(): ProcStat[];
  /** The whole command line, or undefined when it cannot be read. */
  command(pid: number): string | undefined;
  cwd(pid: number): string | undefined;
  /** The working directory of every process this user may inspect. */
  cwds(): Map<number, string>;
  /** Changes at every boot. */
  bootId(): string;
  /** Opaque ids of the sockets listening on this TCP port, on any address. */
  listeners(port: number): Set<string>;
  /** The pids (among `among`, or all) that hold one of these sockets. */
  socketOwners(ids: ReadonlySet<string>, among?: readonly number[]): number[];
}
