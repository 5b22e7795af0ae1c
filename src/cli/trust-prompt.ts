/**
 * @module cli/trust-prompt
 * The one question `toolgate chat` asks on a terminal before the session starts, when a folder's own files
 * are not trusted as they are: never trusted, or changed (or new) since they were. It shows what they would
 * allow and start, or what changed, and trusts exactly what it showed.
 */
import { realpath } from "node:fs/promises";
import { formatReview, needsTrust, reviewWorkspace, trustReview } from "../trust/index.js";
import { readTrustedFolders, trustStorePath } from "../workspace/index.js";
import type { CliContext } from "./context.js";

/**
 * On a terminal, in a folder whose own files are not all trusted as they are: shows them and asks once.
 * Yes → they are trusted (as `toolgate trust` would). Returns whether every file is trusted afterwards.
 */
export async function askWorkspaceTrust(
  ctx: CliContext,
  question: (text: string) => Promise<string>,
): Promise<boolean> {
  const store = trustStorePath({ env: ctx.io.env });
  const root = await realpath(ctx.root).catch(() => ctx.root);
  let folders: ReturnType<typeof readTrustedFolders>;
  try {
    folders = readTrustedFolders(store);
  } catch {
    return false; // a broken list trusts nothing; the gate's warnings say why
  }
  const review = await reviewWorkspace(root, folders);
  if (!needsTrust(review)) return true;
  if (!ctx.io.isTTY) return false;
  const shown = {
    ...review,
    files: review.files.filter((f) => f.status !== "unchanged" && f.status !== "removed"),
  };
  const changed = shown.files.some((f) => f.status === "changed" || f.status === "new");
  ctx.io.stdout(
    (changed
      ? `This folder's own toolgate files changed since you trusted them (${root}):\n`
      : `This folder's own toolgate files are not trusted yet (${root}). Trusted, they would:\n`) +
      formatReview(shown) +
      "Until then its policy can only make things stricter, and its MCP servers are not started.\n",
  );
  const answer = (await question("Trust this folder? [y/N] ")).trim().toLowerCase();
  if (answer !== "y" && answer !== "yes") return false;
  await trustReview(review, store);
  ctx.io.stdout(`trusted ${root} (recorded in ${store})\n`);
  return true;
}
