/**
 * @module trust/record
 * Writing the trust list: trusting a workspace (the files of a review, exactly the bytes shown), re-recording
 * one file toolgate itself wrote (`init`, and anything else that writes a workspace's own files), and
 * forgetting a folder. Every change reads the list, changes it and writes it back under the list's lock, so
 * two toolgate processes never lose each other's change.
 */
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { withFileLock } from "../state/index.js";
import {
  contentDigest,
  isInsideOrEqual,
  readTrustedFolders,
  type TrustedFile,
  type TrustedFolder,
  trustStorePath,
  writeTrustedFolders,
} from "../workspace/index.js";
import { factsOf, type WorkspaceReview } from "./review.js";

async function update<T>(
  store: string,
  change: (folders: TrustedFolder[]) => { folders?: TrustedFolder[]; result: T },
): Promise<T> {
  // The lock is a folder beside the list: the list's folder must exist first (private to the user).
  await mkdir(dirname(store), { recursive: true, mode: 0o700 });
  return withFileLock(store, {}, async (check) => {
    const { folders, result } = change(readTrustedFolders(store));
    if (folders) {
      check();
      await writeTrustedFolders(folders, store);
    }
    return result;
  });
}

/**
 * Trusts the reviewed workspace: its record becomes exactly the files the review read, with their digests
 * and facts (a file changed since the review stays untrusted). Returns the record written.
 * @example const review = await reviewWorkspace(root, readTrustedFolders(store)); await trustReview(review, store);
 */
export async function trustReview(
  review: WorkspaceReview,
  store: string = trustStorePath(),
): Promise<TrustedFolder> {
  const files: Record<string, TrustedFile> = {};
  for (const f of review.files) if (f.record) files[f.path] = f.record;
  return update(store, (folders) => {
    const earlier = folders.find((f) => f.path === review.root);
    const record: TrustedFolder = {
      path: review.root,
      since: earlier?.files !== undefined ? earlier.since : new Date().toISOString(),
      files,
    };
    return { folders: [...folders.filter((f) => f !== earlier), record], result: record };
  });
}

/**
 * Records the digest (and facts) of `bytes` as the trusted content of `path` (relative to `root`), in
 * `root`'s own record, made when there is none (nothing when a folder trusting any content holds `root`). For what toolgate itself writes into a workspace's trusted
 * files (`init`'s starters, a rule an answer adds to the policy): the one function that does it. `bytes`
 * are what was written, not read back, so a change made meanwhile by anything else is not trusted.
 * @example await retrustFile(root, ".toolgate/policy.toml", text);
 */
export async function retrustFile(
  root: string,
  path: string,
  bytes: string | Uint8Array,
  store: string = trustStorePath(),
): Promise<void> {
  const text = typeof bytes === "string" ? bytes : Buffer.from(bytes).toString("utf8");
  const { facts } = factsOf(path, text);
  const file: TrustedFile = { sha256: contentDigest(bytes), ...(Object.keys(facts).length ? { facts } : {}) };
  await update(store, (folders) => {
    // A folder that trusts any content below it already trusts whatever is written there.
    if (folders.some((f) => f.content === "any" && isInsideOrEqual(f.path, root)))
      return { result: undefined };
    const earlier = folders.find((f) => f.path === root);
    const record: TrustedFolder = {
      path: root,
      since: earlier?.files !== undefined ? earlier.since : new Date().toISOString(),
      // A record without digests (the first list's) trusted nothing: it starts over with this file.
      files: { ...(earlier?.files ?? {}), [path]: file },
    };
    return { folders: [...folders.filter((f) => f !== earlier), record], result: undefined };
  });
}

/** Removes `dir`'s record; returns the list after and whether there was one. */
export async function forgetFolder(
  dir: string,
  store: string = trustStorePath(),
): Promise<{ folders: TrustedFolder[]; removed: boolean }> {
  return update(store, (folders) => {
    const next = folders.filter((f) => f.path !== dir);
    const removed = next.length !== folders.length;
    return { ...(removed ? { folders: next } : {}), result: { folders: next, removed } };
  });
}
