// The hints that name a tool. The core knows no tool: a core error whose fix is to call one
// is a StepError with a code (core/nextStep.ts); here each code gets its hint, written with
// the canonical names (blog_dev_start...), which runTool rewrites with the project's prefix.
import { type Answer, errorAnswer } from "../core/answer.ts";
import { type NextStep, StepError } from "../core/nextStep.ts";

export const NEXT_STEP_HINTS: Record<NextStep, string> = {
  "dev-busy": "A start or stop is still under way in another process; call blog_dev_status, then retry.",
  "dev-stuck": "They are stuck in the kernel (state D); wait a few seconds and call blog_dev_stop again.",
  "astro-stuck": "Wait a few seconds and call blog_dev_stop again.",
  "dev-not-running": 'Call blog_dev_start first, or pass the "port" of a local server.',
  "http-timeout": 'The page may be compiling or stuck: retry with a larger "timeoutMs", or read blog_dev_logs.',
  "http-refused": "Call blog_dev_status; blog_dev_start starts the server.",
  "http-failed": "Call blog_dev_status, and blog_dev_logs for the server's side.",
  "no-server-to-check": "Start it with blog_dev_start (or pass port for a server already running on 127.0.0.1).",
  "selector-missed": "Check the selector against the page (blog_dev_http_get shows the HTML), or omit it to capture the page.",
  "no-build-output": "Run blog_build_run first, then check the links.",
  "no-html-pages": "Run blog_build_run; if it fails, fix the build first.",
  "error-page": "Find why with blog_browser_js_errors on that page (the server's error and its source), fix it, then try again.",
  "changes-no-server": "Start it with blog_dev_start, then look again after an edit.",
  "dev-no-answer": "Call blog_dev_status; start it again if it is down.",
  "dev-not-vigie": "Stop it and start it with blog_dev_start.",
};

/** The error answer for a StepError, its hint naming the tool to call; undefined for any other error. */
export function stepErrorAnswer(error: unknown): Answer | undefined {
  if (!(error instanceof StepError)) return undefined;
  return errorAnswer(error.message, NEXT_STEP_HINTS[error.next], error.context);
}
