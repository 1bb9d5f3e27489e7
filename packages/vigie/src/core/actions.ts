// A reader's actions as they are written (a tool's `actions`, a flow's `steps` in
// vigie.config.json) and what running them came to: the verbs, the parsed Action, the forms
// accepted, an action's label. Knows nothing of the browser: browser/actions.ts runs them.
import { clip, VigieError } from "./answer.ts";

/** The verbs, each with the form its action takes. */
const TARGET_VERBS = ["click", "hover", "focus", "scrollTo", "waitFor", "follow"] as const;
const VALUE_VERBS = ["fill", "select"] as const;
export const VERBS = [...TARGET_VERBS, ...VALUE_VERBS, "press"] as const;
export type Verb = (typeof VERBS)[number];

/** One action, parsed: its verb, its target (absent for a press on the focused element), its value (fill, select) or key (press). */
export interface Action {
  verb: Verb;
  target?: string;
  value?: string;
}

/** What accepted actions look like, for an error's hint. */
export const ACTIONS_ACCEPTED =
  'Each step is one object with one verb: {"click"|"hover"|"focus"|"scrollTo"|"waitFor"|"follow": TARGET}, {"fill"|"select": TARGET, "value": "text"}, {"press": "Enter"} (on the focused element) or {"press": "Enter", "on": TARGET}. TARGET: "ROLE NAME" such as "button Next" or "link About", "text=Some text", or a CSS selector ("css=..." forces one).';

export const MAX_ACTIONS = 20;

/** An action that could not run. Its fields are those answers give. */
export interface ActionFailure {
  /** 1-based. */
  step: number;
  action: string;
  reason: string;
  /** The page's closest named controls: what the target may have meant. */
  candidates?: string[];
}

export interface ActionsOutcome {
  /** Actions that ran to their end. */
  ran: number;
  of: number;
  failed?: ActionFailure;
}

function invalid(index: number, why: string): VigieError {
  return new VigieError(`actions[${index}]: ${why}`, ACTIONS_ACCEPTED, { argument: "actions" });
}

const text = (value: unknown): value is string => typeof value === "string" && value.trim().length > 0 && value.length <= 300;

/** Checks the actions as given (tool arguments, a flow of vigie.config.json); throws a VigieError naming the first bad one. */
export function parseActions(raw: unknown): Action[] {
  if (!Array.isArray(raw)) throw invalid(0, "actions must be a list of steps");
  if (raw.length > MAX_ACTIONS) throw new VigieError(`actions: ${raw.length} steps, at most ${MAX_ACTIONS}`, ACTIONS_ACCEPTED);
  return raw.map((item, index): Action => {
    if (!item || typeof item !== "object" || Array.isArray(item)) throw invalid(index, `a step is an object, got ${JSON.stringify(item)}`);
    const keys = Object.keys(item);
    const verbs = keys.filter((key) => (VERBS as readonly string[]).includes(key));
    if (verbs.length !== 1) {
      const unknown = keys.filter((key) => !(VERBS as readonly string[]).includes(key) && key !== "value" && key !== "on");
      throw invalid(
        index,
        verbs.length
          ? `one verb per step, got ${verbs.join(" and ")}`
          : `no verb${unknown.length ? ` (unknown: ${unknown.join(", ")})` : ""}; verbs: ${VERBS.join(", ")}`,
      );
    }
    const verb = verbs[0] as Verb;
    const record = item as Record<string, unknown>;
    const main = record[verb];
    const extra = keys.filter((key) => key !== verb);
    if (!text(main)) throw invalid(index, `${verb} takes a non-empty string (at most 300 characters)`);
    if (verb === "press") {
      if (extra.some((key) => key !== "on")) throw invalid(index, `press takes only "on" beside the key, got ${extra.join(", ")}`);
      if (record.on !== undefined && !text(record.on)) throw invalid(index, `"on" is a TARGET string`);
      return { verb, value: main, ...(record.on !== undefined ? { target: record.on as string } : {}) };
    }
    if ((VALUE_VERBS as readonly string[]).includes(verb)) {
      if (extra.some((key) => key !== "value"))
        throw invalid(index, `${verb} takes only "value" beside its target, got ${extra.join(", ")}`);
      if (typeof record.value !== "string" || record.value.length > 1000) throw invalid(index, `${verb} needs "value", a string`);
      return { verb, target: main, value: record.value };
    }
    if (extra.length) throw invalid(index, `${verb} takes its target only, got also ${extra.join(", ")}`);
    return { verb, target: main };
  });
}

/** An action in a few words, as answers name it: `press "ArrowRight"`, `click "button Next"`. */
export function actionLabel(action: Action): string {
  const target = action.target ? ` ${JSON.stringify(clip(action.target, 60))}` : "";
  if (action.verb === "press") return `press ${JSON.stringify(action.value)}${action.target ? ` on${target}` : ""}`;
  if (action.value !== undefined) return `${action.verb}${target} with ${JSON.stringify(clip(action.value, 40))}`;
  return `${action.verb}${target}`;
}
