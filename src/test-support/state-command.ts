/**
 * `toolgate memory` / `toolgate todos` run as plain functions over a real file state backend in a temp folder
 * (a workspace `ws/` and a user state folder), made afresh before each test and removed after it.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import type { StateCommandIo } from "../cli/commands/memory.js";
import { createFileStateBackend } from "../state/index.js";

export interface StateCommandRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface StateCommandHarness {
  /** The workspace root of the current test. */
  root(): string;
  /** The user state folder of the current test. */
  userDir(): string;
  run(argv: string[], json?: boolean): Promise<StateCommandRun>;
}

/** Registers the temp folders' set-up and tear-down hooks; call at the top of a test file. */
export function stateCommandHarness(
  command: (argv: string[], io: StateCommandIo) => Promise<number>,
): StateCommandHarness {
  let dir = "";
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolgate-cli-state-"));
    await mkdir(join(dir, "ws"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const root = () => join(dir, "ws");
  const userDir = () => join(dir, "user-state");
  return {
    root,
    userDir,
    async run(argv, json = false) {
      const out: string[] = [];
      const err: string[] = [];
      // The backend a gate makes, its warnings on stderr as the gate's logger writes them.
      const logger = { warn: (m: string) => err.push(`toolgate: warning: ${m}\n`) };
      const state = createFileStateBackend({ root: root(), userDir: userDir(), logger });
      const io: StateCommandIo = { state, json, stdout: (s) => out.push(s), stderr: (s) => err.push(s) };
      const code = await command(argv, io);
      return { code, stdout: out.join(""), stderr: err.join("") };
    },
  };
}
