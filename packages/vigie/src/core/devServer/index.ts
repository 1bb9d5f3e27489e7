// The dev server's lifecycle: start, stop, status, logs and GET, over plain functions.
// Every process can call them on the same project: the state under .opencode/ and its
// lock make them agree on one server.
export { checkPath, DEFAULT_HTTP_TIMEOUT_MS, type HttpGetAnswer, type HttpGetOptions, httpGet } from "./http.ts";
export { type LogLevel, type LogsAnswer, type LogsOptions, readDevLogs } from "./log.ts";
export {
  DEFAULT_COMMANDS,
  DEFAULT_PORT,
  DEFAULT_READY_TIMEOUT_MS,
  PORT_PLACEHOLDER,
  type StartAnswer,
  type StartOptions,
  startDevServer,
} from "./start.ts";
export type { DevMode, DevServerRecord } from "./state.ts";
export { readRecord as readDevServerRecord } from "./state.ts";
export { devServerStatus, readDevPort, type StatusAnswer } from "./status.ts";
export { DEFAULT_GRACE_MS, type StopAnswer, type StopOptions, stopDevServer } from "./stop.ts";
