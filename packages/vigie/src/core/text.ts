// Small text helpers shared across the core.

/** `text` as a regular expression that matches it literally. */
export function literalPattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
