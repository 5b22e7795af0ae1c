/**
 * @module approvals/folder
 * Where the machine's shared asks live, and the store `[approvals] route` picks. The folder is in the user's
 * state folder, which the sandbox hides from commands and the file tools may not write: an agent cannot
 * answer its own asks by writing a settlement file.
 */
import { join } from "node:path";
import { type ApprovalStore, InProcessApprovalStore } from "../core/index.js";
import { userStateDir } from "../state/index.js";
import { FileApprovalStore } from "./file-store.js";

/**
 * The shared approvals folder: `<user state folder>/approvals`.
 * @example approvalsDir("/home/me/.config/toolgate/state") // "/home/me/.config/toolgate/state/approvals"
 */
export function approvalsDir(stateDir: string = userStateDir()): string {
  return join(stateDir, "approvals");
}

/**
 * The approval store for a route: `console` → the shared folder's file store, `local` → this process's own.
 * `project` (the gate's first root) is written on each ask, so the console groups asks by project.
 * @example approvalStoreFor("console").shared // true
 */
export function approvalStoreFor(
  route: "local" | "console",
  stateDir?: string,
  project?: string,
): ApprovalStore {
  return route === "console"
    ? new FileApprovalStore({ dir: approvalsDir(stateDir), ...(project === undefined ? {} : { project }) })
    : new InProcessApprovalStore();
}
