// Runtime findings back to the source file and line they come from. Each locator answers
// `{ source: "src/x.mdx:12" }` or `{ sourceUnknown: "why" }`, never a guess.
export { locateDiagram } from "./diagrams.ts";
export { SourceFiles } from "./files.ts";
export { locateImage } from "./images.ts";
export { at, type Located, unknown } from "./located.ts";
export { cachedFetcher, type FetchText } from "./sourceMaps.ts";
export { locateStack, parseStack, type StackFrame } from "./stacks.ts";
