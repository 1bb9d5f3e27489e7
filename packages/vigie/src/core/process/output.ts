// What a command printed, made readable: no terminal escapes, one kind of line end.
import { stripVTControlCharacters } from "node:util";
import { clip } from "../answer.ts";

/** Terminal colours and cursor moves removed (Node's own stripper: the one vigie uses). */
export const stripAnsi = stripVTControlCharacters;

/** A command's output as text: escapes stripped, CRLF and CR turned into LF. */
export function cleanOutput(output: string): string {
  return stripAnsi(output).replace(/\r\n?/g, "\n");
}

/** The last `count` non-empty lines of an output, each clipped to `width` characters. */
export function tailLines(output: string, count: number, width = 160): string[] {
  const lines = output.split("\n").filter((line) => line.trim() !== "");
  return lines.slice(-count).map((line) => clip(line, width));
}
