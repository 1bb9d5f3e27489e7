// Hints that name a tool are worded in tools/ (tools/hints.ts): a project chooses its tools'
// prefix, and the core knows no tool. A core error whose fix is to call a tool throws a
// StepError: the step as a code, with a hint that says it without a tool's name (what
// `vigie validate` shows, it being core); the tools answer with the hint that names the tool.
import { type Answer, VigieError } from "./answer.ts";

export type NextStep =
  /** Another process holds the dev-server lock. */
  | "dev-busy"
  /** Processes of the dev server's group survived SIGKILL. */
  | "dev-stuck"
  /** An Astro-started server survived SIGKILL. */
  | "astro-stuck"
  /** No dev server runs and no port was given. */
  | "dev-not-running"
  | "http-timeout"
  | "http-refused"
  | "http-failed"
  /** No page to check: no dev server and no port or baseUrl. */
  | "no-server-to-check"
  | "selector-missed"
  /** The links check needs a build. */
  | "no-build-output"
  | "no-html-pages"
  /** The page answered an error status: no screenshot or comparison of it. */
  | "error-page"
  /** What an edit changed is asked of the dev server, and none runs. */
  | "changes-no-server"
  /** The dev server did not answer a question about a change. */
  | "dev-no-answer"
  /** The dev server runs without vigie's dev config: it cannot say what a change reaches. */
  | "dev-not-vigie";

export class StepError extends VigieError {
  readonly next: NextStep;
  constructor(message: string, next: NextStep, hint: string, context: Answer = {}) {
    super(message, hint, context);
    this.next = next;
  }
}
