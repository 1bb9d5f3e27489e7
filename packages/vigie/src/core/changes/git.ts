// The files a change touched, from git: the working tree (untracked files included)
// against HEAD by default, or against a ref. Outside git there is nothing to compare with.
import { execFileSync } from "node:child_process";
import { relative, resolve, sep } from "node:path";
import { VigieError } from "../answer.ts";

export type GitChanges =
  | {
      git: true;
      /** What the working tree is compared with, as given ("HEAD" by default). */
      ref: string;
      /** Changed, added, deleted and untracked files, relative to the project root, sorted. */
      files: string[];
      /** Those of `files` that no longer exist. */
      deleted: string[];
    }
  | { git: false; reason: string };

function git(root: string, args: string[]): string {
  return execFileSync("git", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024 });
}

const lines = (text: string) => text.split("\0").filter(Boolean);

/** Changed files of the project at `root` against `ref` (default HEAD), untracked files included. */
export function gitChanges(root: string, ref = "HEAD"): GitChanges {
  let top: string;
  try {
    top = git(root, ["rev-parse", "--show-toplevel"]).trim();
  } catch (error) {
    const message = (error as { stderr?: string }).stderr?.split("\n")[0] || (error as Error).message;
    return { git: false, reason: /ENOENT/.test(message) ? "git is not installed" : `${root} is not in a git repository` };
  }
  if (ref.startsWith("-") || !verify(root, ref)) {
    const unborn = ref === "HEAD" && !verify(root, "HEAD");
    throw new VigieError(
      unborn ? "the repository has no commit yet: HEAD names nothing to compare with" : `unknown git revision "${ref}"`,
      unborn
        ? "Commit once (the state to compare with), or run without --changed to check everything."
        : "Give a commit, branch or tag of this repository (e.g. HEAD, HEAD~1, main, a commit hash), or nothing for the working tree against HEAD.",
      { argument: "changed" },
    );
  }
  const fromTop = new Set<string>();
  const deletedFromTop = new Set<string>();
  // Against the ref: staged and unstaged changes; renames as a deletion and an addition.
  for (const file of lines(git(root, ["diff", "--name-only", "--no-renames", "-z", ref, "--", "."]))) fromTop.add(file);
  for (const file of lines(git(root, ["diff", "--name-only", "--no-renames", "--diff-filter=D", "-z", ref, "--", "."])))
    deletedFromTop.add(file);
  // Untracked files, as `git status` lists them (ignored ones left out).
  for (const file of lines(git(root, ["ls-files", "--others", "--exclude-standard", "--full-name", "-z", "--", "."]))) fromTop.add(file);
  const toProject = (file: string) => relative(root, resolve(top, file)).split(sep).join("/");
  const inProject = (file: string) => !file.startsWith("../") && file !== "..";
  const files = [...fromTop].map(toProject).filter(inProject).sort();
  const deleted = [...deletedFromTop].map(toProject).filter(inProject).sort();
  return { git: true, ref, files, deleted };
}

function verify(root: string, ref: string): boolean {
  try {
    git(root, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

/** The text of a file at `ref`, or undefined (a file the ref does not have). */
export function fileAt(root: string, ref: string, file: string): string | undefined {
  try {
    return git(root, ["show", `${ref}:./${file}`]);
  } catch {
    return undefined;
  }
}
