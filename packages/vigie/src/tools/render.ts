// One renderer for every tool's answer, whatever the face (runTool calls it). A tool's run
// gives its answer with whole lists and whole strings, and the files it points at; its
// definition declares its budget, its lists with how many items each shows, and the most
// characters of its strings (`limits`). The renderer clips each limited string, cuts each list
// to its size, then drops items from the longest list until the answer fits the budget, says
// what it cut in one way (`more: { failing: 12 }` beside the cut list), writes the whole result
// to a report when anything was cut or clipped, and gives every file in one field
// (`files: { report, log }`), the only one the faces read for files (MCP's resource_links, the CLI).
import { type Answer, clip, MAX_ANSWER_BYTES, serialize, writeReport } from "../core/answer.ts";
import type { Project } from "../core/project.ts";
import { COMMON_LIMITS, COMMON_LISTS } from "./answers.ts";
import { type AnswerFiles, prefixedToolName, type ToolDefinition, type ToolOutput } from "./define.ts";

interface List {
  /** Its name in the answer, with the names of the objects it is in: "content.problems". */
  name: string;
  path: string[];
  show: number;
  keep: "first" | "last";
}

export interface RenderContext {
  project: Project;
  /** The prefix the agent sees the tools with: the default report is named after the tool. */
  prefix?: string;
}

const isObject = (value: unknown): value is Answer => typeof value === "object" && value !== null && !Array.isArray(value);

const bytesOf = (answer: Answer) => Buffer.byteLength(serialize(answer));

/** The lists of the definition, in their order, then those any answer may have. */
function listsOf(definition: ToolDefinition): List[] {
  return Object.entries({ ...definition.lists, ...COMMON_LISTS }).map(([name, spec]) => ({
    name,
    path: name.split("."),
    ...(typeof spec === "number" ? { show: spec, keep: "first" as const } : spec),
  }));
}

/** The items of a list in the answer, when it holds one there. */
function itemsOf(answer: Answer, path: string[]): unknown[] | undefined {
  let holder: unknown = answer;
  for (const key of path.slice(0, -1)) holder = isObject(holder) ? holder[key] : undefined;
  const items = isObject(holder) ? holder[path.at(-1) as string] : undefined;
  return Array.isArray(items) ? items : undefined;
}

/** The objects that hold the last key of `path`, through every item of a list on the way. */
function holdersOf(value: unknown, path: readonly string[]): Answer[] {
  if (Array.isArray(value)) return value.flatMap((item) => holdersOf(item, path));
  if (!isObject(value)) return [];
  const [key, ...rest] = path;
  if (key === undefined) return [];
  return rest.length === 0 ? [value] : holdersOf(value[key], rest);
}

/** `value` with its strings at `path` clipped to `max` characters; `clipped` is called for each one it clipped. */
function limited(value: unknown, path: readonly string[], max: number, clipped: () => void): unknown {
  if (Array.isArray(value)) return value.map((item) => limited(item, path, max, clipped));
  const [key, ...rest] = path;
  if (key === undefined) {
    if (typeof value !== "string" || value.length <= max) return value;
    clipped();
    return clip(value, max);
  }
  if (isObject(value) && key in value) value[key] = limited(value[key], rest, max, clipped);
  return value;
}

/** Sets `more[key]` in `holder`, right after `key`: how many items of the list at `key` were left out. */
function countBeside(holder: Answer, key: string, count: number): void {
  const { more, ...rest } = holder as Answer & { more?: Answer };
  for (const inner of Object.keys(holder)) delete holder[inner];
  for (const [inner, value] of Object.entries(rest)) {
    holder[inner] = value;
    if (inner === key) holder.more = { ...more, [key]: count };
  }
}

/**
 * A list that stands in the items of another list ("errors.details"): each one cut to its size,
 * with `more` beside it in its item. True when one was cut.
 */
function cutInItems(answer: Answer, list: List): boolean {
  const key = list.path.at(-1) as string;
  let cut = false;
  for (const holder of holdersOf(answer, list.path)) {
    const items = holder[key];
    if (!Array.isArray(items) || items.length <= list.show) continue;
    const count = items.length - list.show;
    holder[key] = list.keep === "last" ? items.slice(count) : items.slice(0, list.show);
    countBeside(holder, key, count);
    cut = true;
  }
  return cut;
}

/** The answer with the strings the definition limits (and those of any answer) clipped; true when one was. */
function applyLimits(answer: Answer, definition: ToolDefinition): boolean {
  let clipped = false;
  for (const [path, max] of Object.entries({ ...definition.limits, ...COMMON_LIMITS })) {
    limited(answer, path.split("."), max, () => {
      clipped = true;
    });
  }
  return clipped;
}

/** The files of the answer: those the run gave and any an error's context named, without the empty ones. */
function filesOf(answer: Answer, given: AnswerFiles | undefined): Record<string, string> {
  const named = isObject(answer.files) ? (answer.files as AnswerFiles) : {};
  return Object.fromEntries(
    Object.entries({ ...named, ...given }).filter((entry): entry is [string, string] => typeof entry[1] === "string" && entry[1] !== ""),
  );
}

/** The files a rendered answer points at (its `files`), by what each is: what the faces read for files. */
export function answerFiles(answer: Answer): Record<string, string> {
  return filesOf(answer, undefined);
}

/** The answer with `more` beside each cut list (in the object that holds it), and `files` last. */
function assemble(answer: Answer, cut: Map<string, number>, files: Record<string, string>): Answer {
  const withMore = (value: Answer, prefix: string): Answer => {
    const out: Answer = {};
    for (const [key, inner] of Object.entries(value)) {
      const name = prefix ? `${prefix}.${key}` : key;
      const nested = isObject(inner) && [...cut.keys()].some((path) => path.startsWith(`${name}.`));
      out[key] = nested ? withMore(inner, name) : inner;
      const count = cut.get(name);
      if (count) out.more = { ...(out.more as Answer | undefined), [key]: count };
    }
    return out;
  };
  const { files: _, ...rest } = answer;
  return { ...withMore(rest, ""), ...(Object.keys(files).length ? { files } : {}) };
}

/**
 * The answer as the agent gets it: the declared strings clipped to their limits, the declared
 * lists cut to their sizes, then to the budget
 * (one item at a time from the longest list, down to one item each, then the lists declared
 * last before the others, the first declared being the most useful), `more` saying how many
 * of each list were left out, the whole result in a report when anything was, and the files
 * in `files`. An answer still over the budget then gets the last resort (`lastResort`).
 */
export function renderAnswer(definition: ToolDefinition, output: ToolOutput, context: RenderContext): Answer {
  const budget = definition.budget ?? MAX_ANSWER_BYTES;
  const answer = structuredClone(output.answer);
  const files = filesOf(answer, output.files);
  const cut = new Map<string, number>();
  const lists = listsOf(definition);
  const report = () => {
    files.report ??= writeReport(
      context.project,
      output.full?.name ?? `${prefixedToolName(definition, context.prefix)}.json`,
      output.full?.content ?? output.answer,
    );
  };
  const drop = (list: List, items: unknown[], count: number): unknown[] => {
    cut.set(list.name, (cut.get(list.name) ?? 0) + count);
    return list.keep === "last" ? items.splice(0, count) : items.splice(items.length - count, count);
  };
  let shortened = applyLimits(answer, definition);
  for (const list of lists) {
    const items = itemsOf(answer, list.path);
    if (items && items.length > list.show) drop(list, items, items.length - list.show);
    else if (!items && cutInItems(answer, list)) shortened = true;
  }
  if (cut.size || shortened) report();
  // Then one item at a time from the longest list (of equal ones, the one declared last), down
  // to one item each, then the last items of the lists declared last; sizes are counted down,
  // and measured exactly near the budget.
  let bytes = bytesOf(assemble(answer, cut, files));
  while (bytes > budget) {
    let longest: { list: List; items: unknown[] } | undefined;
    for (const list of lists) {
      const items = itemsOf(answer, list.path);
      if (items && items.length > 1 && items.length >= (longest?.items.length ?? 0)) longest = { list, items };
    }
    for (const list of longest ? [] : lists) {
      const items = itemsOf(answer, list.path);
      if (items?.length) longest = { list, items };
    }
    if (!longest) break;
    const [item] = drop(longest.list, longest.items, 1);
    report();
    bytes -= Buffer.byteLength(JSON.stringify(item) ?? "") + 1;
    if (bytes <= budget + 128) bytes = bytesOf(assemble(answer, cut, files));
  }
  const rendered = assemble(answer, cut, files);
  if (bytesOf(rendered) <= budget) return rendered;
  report();
  return lastResort(assemble(answer, cut, files), budget);
}

/** What the last resort never drops: what went wrong, what to do, what was cut and where it all is. */
const KEPT = ["error", "hint", "more", "files"];

/**
 * For an answer the lists alone cannot bring under the budget (a long field no list holds, an
 * undeclared list, a huge single item): each field in order, strings clipped to 300
 * characters and lists to three items, as long as it fits; the rest is left out. The report
 * already holds all of it.
 */
function lastResort(answer: Answer, budget: number): Answer {
  const more: Answer = { ...(answer.more as Answer | undefined) };
  const kept: Answer = {};
  for (const key of KEPT) if (answer[key] !== undefined) kept[key] = answer[key];
  for (const [key, value] of Object.entries(answer)) {
    if (KEPT.includes(key)) continue;
    const cut = Array.isArray(value) && value.length > 3 ? value.length - 3 : 0;
    const trimmed = cut ? (value as unknown[]).slice(0, 3) : typeof value === "string" ? clip(value, 300) : value;
    const moreWith = cut ? { ...more, [key]: cut } : more;
    if (bytesOf({ ...kept, [key]: trimmed, more: moreWith }) > budget) continue;
    kept[key] = trimmed;
    if (cut) more[key] = cut;
  }
  if (Object.keys(more).length) kept.more = more;
  // In the answer's own order.
  const ordered: Answer = {};
  for (const key of Object.keys(answer)) if (key in kept) ordered[key] = kept[key];
  if (kept.more && !("more" in ordered)) ordered.more = kept.more;
  if (kept.files) {
    delete ordered.files;
    ordered.files = kept.files;
  }
  return ordered;
}
