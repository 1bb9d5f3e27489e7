// `--changed`: what a change can have affected, so that only that is checked (changed.ts is the
// one answer; baseline.ts the one baseline and the one rule for a page that was ok).

export { baselinePath, pageOk, readBaseline } from "./baseline.ts";
export { builtChanges, CHANGED_PAGE_LIMIT, type ChangeReach, changeReach, gitPlan } from "./changed.ts";
export { Fingerprints, pageReferences } from "./fingerprints.ts";
export { type GitChanges, gitChanges } from "./git.ts";
export { type ChangePlan, planChanges } from "./plan.ts";
export {
  builtPagePaths,
  type CheckedBuiltPage,
  type CheckedPage,
  choosePages,
  linkedPages,
  type PageSelection,
  readPagesRecord,
  recordCheckedPages,
  recordPages,
  type StylesOnly,
} from "./record.ts";
export { type StyleChange, styleChange } from "./styles.ts";
