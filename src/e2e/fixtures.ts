/**
 * @module e2e/fixtures
 * Shared set-up for the end-to-end suites: an adversarial directory layout (a root with prefix siblings,
 * symlinks and hard links leading out), gates built with `createToolgate` exactly as a host builds them, and a
 * reader for `toolgate ... --json` output.
 */
import { existsSync, readFileSync } from "node:fs";
import {
  link,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { CallResult } from "../core/index.js";
import { createToolgate, type Toolgate, type ToolgateOptions } from "../index.js";

/** A policy that allows every call: what remains refused is refused by the tools and the workspace. */
export const ALLOW_ALL = 'default = "allow"\n\n[[rules]]\ntool = "*"\ndecision = "allow"\n';

/** The DESIGN §6 example: writes and edits under `secrets/` are denied, everything else allowed. */
export const SECRETS_POLICY = `default = "allow"

[[rules]]
tool = ["write_file", "edit_file"]
decision = "deny"
when.path = { glob = "secrets/**" }
message = "secrets are read-only"
`;

/** Where the adversarial layout lives. `root` is the only allowed root; everything else is outside it. */
export interface Layout {
  base: string;
  root: string;
  /** Content of every file outside the root, to prove nothing changed. */
  outsideSnapshot(): Promise<Record<string, string>>;
  cleanup(): Promise<void>;
}

/** Files created outside the root (relative to `base`). */
const OUTSIDE_FILES: Record<string, string> = {
  "outside.txt": "outside\n",
  "proj-evil/secret.txt": "evil secret\n",
  "proj_backup/x": "backup\n",
  "proj2/x": "proj2\n",
  "elsewhere/secret.txt": "elsewhere\n",
};

/**
 * Builds `base/proj` (the root) beside `proj-evil`, `proj_backup`, `proj2` and `outside.txt`, with inside the
 * root: `link-out` (symlink to a file outside), `dir-out` (symlinked folder outside), `c1 → c2 → c3 → outside`
 * (a chain), `dangle` (dangling symlink to a file outside that must never be created) and `hard.txt` (a hard
 * link to `outside.txt`).
 */
export async function adversarialLayout(files: Record<string, string> = {}): Promise<Layout> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "tg-e2e-")));
  const root = join(base, "proj");
  await mkdir(root);
  await writeTree(base, OUTSIDE_FILES);
  await writeTree(root, files);
  await symlink(join(base, "outside.txt"), join(root, "link-out"));
  await symlink(join(base, "elsewhere"), join(root, "dir-out"));
  await symlink(join(base, "outside.txt"), join(root, "c3"));
  await symlink("c3", join(root, "c2"));
  await symlink(join(root, "c2"), join(root, "c1"));
  await symlink(join(base, "created-by-attack.txt"), join(root, "dangle"));
  await link(join(base, "outside.txt"), join(root, "hard.txt"));
  // The person's own links, older than any command: the check after a shell command moves away the links
  // made since a second before it started (src/sandbox/prepare.ts, for file systems that keep whole seconds).
  const made = (await lstat(join(root, "dangle"))).ctimeMs;
  while (Date.now() - made <= 1_100) await new Promise((done) => setTimeout(done, 50));
  return {
    base,
    root,
    async outsideSnapshot() {
      const out: Record<string, string> = {};
      for (const rel of Object.keys(OUTSIDE_FILES)) out[rel] = await readFile(join(base, rel), "utf8");
      out["(entries)"] = (await readdir(base)).sort().join(",");
      out["(elsewhere)"] = (await readdir(join(base, "elsewhere"))).sort().join(",");
      out["(dangling target exists)"] = String(existsSync(join(base, "created-by-attack.txt")));
      return out;
    },
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

/** The adversarial path corpus (testdata/adversarial-paths.json), `{root}` and `{base}` filled in. */
export interface AdversarialPaths {
  inside: Record<string, string>;
  /** [case, path, read_file error, write_file error]; null: it reads / writes inside the root. */
  paths: [string, string, string | null, string | null][];
  editRefused: string[];
  otherToolsRefused: [string, Record<string, unknown>][];
  protectedExtra: string[];
}

const ADVERSARIAL_PATHS = new URL("./testdata/adversarial-paths.json", import.meta.url);

/** Reads the corpus; with a layout, its placeholders become the layout's folders. */
export function adversarialPaths(layout?: Pick<Layout, "root" | "base">): AdversarialPaths {
  let text = readFileSync(ADVERSARIAL_PATHS, "utf8");
  if (layout) {
    // Inside JSON strings: the folders are plain absolute paths (no quotes or backslashes to escape).
    text = text.replaceAll("{root}", layout.root).replaceAll("{base}", layout.base);
  }
  return JSON.parse(text) as AdversarialPaths;
}

/** Writes `files` (paths relative to `dir`), creating folders. */
export async function writeTree(dir: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, rel)), { recursive: true });
    await writeFile(join(dir, rel), content);
  }
}

/** A gate on `root` as a host builds it; warnings are collected instead of printed. */
export async function openGate(root: string, options: ToolgateOptions = {}): Promise<Toolgate> {
  return createToolgate({ roots: [root], cwd: root, logger: { warn: () => undefined }, ...options });
}

/** Answers every confirmation with yes (what a person clicking "allow" does). */
export function approveAll(gate: Toolgate): void {
  gate.bus.onConfirmation(async () => ({ approved: true }));
}

/** The parts of a result the tables compare. */
export function outcome(result: CallResult): { decision: string | null; error: string | null } {
  return { decision: result.decision, error: result.error?.type ?? null };
}

/** The JSON object `toolgate call --json` prints (one per line for `--batch`). */
export interface CliCallOutput {
  ok: boolean;
  decision: string | null;
  llmContent: string;
  returnDisplay: string;
  error: { type: string; message: string } | null;
}

/** Parses `--json` stdout: one object per non-empty line. */
export function jsonLines<T = CliCallOutput>(stdout: string): T[] {
  return stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}
