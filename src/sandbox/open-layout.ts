/**
 * @module sandbox/open-layout
 * Opens what the survey decided (src/sandbox/survey.ts) and makes the plan bwrap gets: each source a
 * descriptor opened without following a link and checked to be at its surveyed path (descriptors.ts), mounted
 * as `/proc/self/fd/N`. A path that moved, turned into a link or changed kind since the survey is a
 * {@link LayoutMoved}: the caller surveys again (and fails closed after a few tries). A protected file with a
 * second hard link is given a file of its own first (own-copy.ts).
 */
import { chmodSync, closeSync, mkdtempSync, rmdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Mount, SandboxPlan } from "./bwrap-args.js";
import { closeAll, kindOf, openChecked, rawOf, textOf } from "./descriptors.js";
import { giveOwnCopy } from "./own-copy.js";
import { type Layout, SandboxSetupError } from "./survey.js";

/** A path changed between the survey and opening it. */
export class LayoutMoved extends Error {
  override readonly name = "LayoutMoved";
}

/** A plan and the descriptors its slots name (slot `firstSlot + i` is `fds[i]`); close them after the start. */
export interface OpenedLayout {
  plan: SandboxPlan;
  fds: number[];
}

let emptyFolder: string | undefined;

/**
 * The empty folder placeholders and hidden folders show (one per process, read-only, in the temp folder; its
 * contents are never written: it is only ever mounted read-only).
 */
function theEmptyFolder(): string {
  if (emptyFolder === undefined) {
    emptyFolder = rawOf(mkdtempSync(join(tmpdir(), "toolgate-empty-")));
    chmodSync(emptyFolder, 0o555);
    const made = emptyFolder;
    process.once("exit", () => {
      try {
        rmdirSync(Buffer.from(made, "latin1"));
      } catch {
        // Left in the temp folder: an empty folder.
      }
    });
  }
  return emptyFolder;
}

/**
 * Opens the layout's sources and returns the plan.
 * @param firstSlot the child's descriptor number of the first opened source (the ones before it carry data).
 * @throws LayoutMoved when a path is not where (or what) the survey found.
 */
export function openLayout(layout: Layout, firstSlot: number): OpenedLayout {
  const fds: number[] = [];
  const slots = new Map<string, number>();
  // Protected files given a file of their own: the layout is opened again (each was surveyed as it was).
  const copied: string[] = [];
  const writableAt = (path: string) => layout.writable.some((w) => path.startsWith(`${w}/`));
  const slotOf = (path: string, want?: "dir" | "protected"): { slot: number } => {
    const known = slots.get(path);
    if (known !== undefined) return { slot: known };
    const opened = openChecked(path);
    if (opened === undefined || opened === "moved") {
      throw new LayoutMoved(`${textOf(path)} ${opened === "moved" ? "moved" : "disappeared"} meanwhile`);
    }
    const kind = kindOf(opened.stat);
    if (kind === "link" || (want === "dir" && kind !== "dir")) {
      closeSync(opened.fd);
      throw new LayoutMoved(`${textOf(path)} is now a ${kind === "link" ? "link" : kind}`);
    }
    if (want === "protected" && kind === "file" && opened.stat.nlink > 1 && writableAt(path)) {
      // Another name of it could be writable: it gets a file of its own, and the layout is opened again.
      closeSync(opened.fd);
      try {
        giveOwnCopy(path, opened.stat.ino);
      } catch (error) {
        throw new SandboxSetupError(
          `${textOf(path)} has ${opened.stat.nlink} hard links, so a command could change it through another ` +
            `name while it is read-only here, and toolgate could not give it a file of its own ` +
            `(${(error as Error).message}); make it a single file (cp, then mv over it) and run the command again`,
        );
      }
      copied.push(path);
      return { slot: -1 };
    }
    const slot = firstSlot + fds.length;
    fds.push(opened.fd);
    slots.set(path, slot);
    return { slot };
  };
  try {
    const binds: Mount[] = [];
    const covers: Mount[] = [];
    if (layout.home) binds.push({ path: layout.home, source: { tmpfs: true }, writable: true });
    for (const { path, source } of layout.visible)
      binds.push({ path, source: slotOf(source), writable: false });
    for (const path of layout.readOnlyRoots)
      binds.push({ path, source: slotOf(path, "dir"), writable: false });
    for (const path of layout.writable) binds.push({ path, source: slotOf(path), writable: true });
    for (const path of layout.pins) binds.push({ path, source: slotOf(path, "dir"), writable: true });
    // One mount per path: the check inside the sandbox can then tie every mount to a path of its own (a bind a
    // cover, or a later bind, would sit on is left out: that one is what counts there).
    const seen = new Set(layout.covers.keys());
    for (let i = binds.length - 1; i >= 0; i--) {
      if (seen.has(binds[i]!.path)) binds.splice(i, 1);
      else seen.add(binds[i]!.path);
    }
    // A file shown as a filtered copy (a repository's config): the copy is what is bound, and the original is
    // still checked for a second hard link a command could write it through.
    const coverSource = (path: string) => {
      const copy = layout.coverSources?.get(path);
      if (copy === undefined) return slotOf(path, "protected");
      slotOf(path, "protected");
      return slotOf(copy);
    };
    for (const [path, kind] of layout.covers) {
      const source =
        kind === "null"
          ? ({ system: "/dev/null" } as const)
          : kind === "empty"
            ? slotOf(theEmptyFolder(), "dir")
            : coverSource(path);
      covers.push({ path, source, writable: false });
    }
    if (copied.length > 0)
      throw new LayoutMoved(
        `${copied.map(textOf).join(", ")} had hard links and were given files of their own`,
      );
    return {
      plan: {
        mode: layout.mode,
        network: layout.network,
        binds,
        covers,
        cwd: layout.cwd,
      },
      fds,
    };
  } catch (error) {
    closeAll(fds);
    throw error;
  }
}
