/**
 * @module trust/review
 * What trusting a workspace would turn on, file by file, against what the trust list recorded: new files
 * described in full, changed ones as what changed (servers added, rules loosened, host variables passed),
 * unchanged and removed ones named. `toolgate trust` and `chat` show it before anything is recorded, and
 * record exactly the bytes that were shown.
 */
import { join } from "node:path";
import { displaySafe } from "../core/index.js";
import { isNotPlainFile, readPlainFile, whyUnread } from "../utils/index.js";
import {
  contentDigest,
  type FileTrust,
  fileTrust,
  type TrustedFile,
  type TrustedFolder,
  trustedFileKinds,
  trustedFilesOf,
} from "../workspace/index.js";
import { configKind } from "./config-facts.js";
import { hooksKind } from "./hook-facts.js";
import type { FactKind } from "./kind.js";
import { mcpKind } from "./mcp-facts.js";
import { policyKind } from "./policy-facts.js";

/** The describers by kind. A kind without one (`agent`) is bound by its digest alone. */
const KINDS: Readonly<Record<string, FactKind<unknown>>> = {
  policy: policyKind as FactKind<unknown>,
  config: configKind as FactKind<unknown>,
  mcp: mcpKind as FactKind<unknown>,
  hooks: hooksKind as FactKind<unknown>,
};

/** How a file stands against the trust list. */
export type ReviewStatus = "unchanged" | "changed" | "new" | "untrusted" | "removed";

/** One file's review. */
export interface FileReview {
  /** Relative to the workspace root, `/`-separated. */
  path: string;
  status: ReviewStatus;
  /** `new`, `untrusted`: what the file turns on. `changed`: what changed. Otherwise empty. */
  lines: string[];
  /** What trusting records for a file that exists: the digest of the bytes reviewed, and their facts. */
  record?: TrustedFile;
  /** How the list answered for it. */
  trust?: FileTrust;
}

/** A whole workspace's review. */
export interface WorkspaceReview {
  root: string;
  files: FileReview[];
}

/** The facts of a file's text for each of its kinds, and a line for each kind that cannot read it. */
export function factsOf(path: string, text: string): { facts: Record<string, unknown>; problems: string[] } {
  const facts: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const kind of trustedFileKinds(path) ?? []) {
    const describer = KINDS[kind];
    if (!describer) continue;
    try {
      facts[kind] = describer.summarize(text, path);
    } catch (error) {
      problems.push(`does not parse (${(error as Error).message.split("\n")[0]})`);
    }
  }
  return { facts, problems };
}

function describe(facts: Record<string, unknown>): string[] {
  return Object.entries(facts).flatMap(([kind, f]) => KINDS[kind]?.describe(f) ?? []);
}

function changes(before: Record<string, unknown> | undefined, after: Record<string, unknown>): string[] {
  const lines: string[] = [];
  for (const [kind, now] of Object.entries(after)) {
    const was = before?.[kind];
    const describer = KINDS[kind];
    if (!describer) continue;
    if (was === undefined) lines.push("(nothing recorded to compare with) now:", ...describer.describe(now));
    else lines.push(...describer.changes(was, now));
  }
  return lines;
}

const STATUS: Readonly<Record<FileTrust["state"], ReviewStatus>> = {
  trusted: "unchanged",
  changed: "changed",
  new: "new",
  "no-digest": "untrusted",
  "not-trusted": "untrusted",
};

/**
 * Reviews the files trust covers in `root` (canonical) against `folders`.
 * @example (await reviewWorkspace("/p", readTrustedFolders())).files // [{ path: ".mcp.json", status: "new", lines: [...] }]
 */
export async function reviewWorkspace(
  root: string,
  folders: readonly TrustedFolder[],
): Promise<WorkspaceReview> {
  const files: FileReview[] = [];
  const present = new Set<string>();
  for (const { path } of await trustedFilesOf(root)) {
    let bytes: Buffer;
    try {
      bytes = await readPlainFile(join(root, path));
    } catch (error) {
      // A FIFO or device by that name: shown, never trusted (nothing is recorded for it); loading refuses it.
      if (isNotPlainFile(error) && error.kind !== "a directory")
        files.push({ path, status: "untrusted", lines: [`not read: ${whyUnread(error)}`] });
      continue; // a dangling link or a folder by that name: nothing toolgate could read either
    }
    present.add(path);
    const text = bytes.toString("utf8");
    const { facts, problems } = factsOf(path, text);
    const trust = fileTrust(folders, join(root, path), bytes);
    const status = STATUS[trust.state];
    const lines =
      status === "unchanged"
        ? []
        : status === "changed"
          ? changes(trust.recorded?.facts, facts)
          : describe(facts);
    if (status === "changed" && lines.length === 0) lines.push("nothing it allows, sets or starts changed");
    files.push({
      path,
      status,
      lines: [...problems, ...lines],
      record: { sha256: contentDigest(bytes), ...(Object.keys(facts).length > 0 ? { facts } : {}) },
      trust,
    });
  }
  const own = folders.find((f) => f.path === root);
  for (const path of Object.keys(own?.files ?? {}).sort())
    if (!present.has(path)) files.push({ path, status: "removed", lines: [] });
  return { root, files };
}

/** Whether a file of the review does not count in full as it is (never trusted, changed, or new). */
export function needsTrust(review: WorkspaceReview): boolean {
  return review.files.some((f) => f.status !== "unchanged" && f.status !== "removed");
}

const HEADING: Readonly<Record<ReviewStatus, string>> = {
  unchanged: "unchanged",
  changed: "changed since it was trusted",
  new: "new since the folder was trusted",
  untrusted: "not trusted yet",
  removed: "removed",
};

/**
 * The review as indented lines: each file with its status, under it what it turns on or what changed.
 * `recorded`: the review was just trusted (a file "not trusted yet" is then one "not trusted before").
 */
export function formatReview(review: WorkspaceReview, recorded = false): string {
  return review.files
    .map((f) => {
      const heading = recorded && f.status === "untrusted" ? "not trusted before" : HEADING[f.status];
      const why = f.trust?.state === "no-digest" ? " (trusted by an older toolgate without digests)" : "";
      // Paths, server names, commands and rule texts are the repository's: one row each, nothing hidden.
      const line = (text: string) => displaySafe(text, false);
      return `  ${line(f.path)}: ${heading}${why}\n${f.lines.map((l) => `    - ${line(l)}\n`).join("")}`;
    })
    .join("");
}
