// The dev server's lifecycle: start, stop, status, logs and GET, over plain functions that
// return typed results (tools/ words them as answers). Every process can call them on the
// same project: the state under .opencode/ and its lock make them agree on one server.
export { checkPath, DEFAULT_HTTP_TIMEOUT_MS, type HttpGetOptions, type HttpGetResult, httpGet } from "./http.ts";
export { type LogLevel, type LogsAnswer, type LogsOptions, readDevLogs } from "./log.ts";
export {
  DEFAULT_COMMANDS,
  DEFAULT_PORT,
  DEFAULT_READY_TIMEOUT_MS,
  type ExitCause,
  PORT_PLACEHOLDER,
  type StartFailure,
  type StartOptions,
  type StartResult,
  startDevServer,
} from "./start.ts";
export type { DevMode, DevServerRecord } from "./state.ts";
export { readRecord as readDevServerRecord } from "./state.ts";
export { devServerStatus, type Health, readDevPort, type StatusResult } from "./status.ts";
export { DEFAULT_GRACE_MS, type StopOptions, type StopResult, stopDevServer } from "./stop.ts";
