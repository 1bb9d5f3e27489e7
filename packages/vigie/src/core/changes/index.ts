// `--changed`: what a change can have affected, so that only that is checked.

export { Fingerprints, pageReferences } from "./fingerprints.ts";
export { type GitChanges, gitChanges } from "./git.ts";
export {
  builtPagePaths,
  type CheckedPage,
  choosePages,
  linkedPages,
  type PageSelection,
  readPagesRecord,
  recordPages,
  type StylesOnly,
} from "./pages.ts";
export { type ChangePlan, planChanges } from "./plan.ts";
export { type StyleChange, styleChange } from "./styles.ts";
