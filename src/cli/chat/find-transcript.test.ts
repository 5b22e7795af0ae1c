/**
 * Finding a saved session for `chat --resume` and `replay`: the newest (by modification time) with a label,
 * else the newest of all; a path, a session id or an id with `.jsonl`; clear errors for none and unknown.
 */
import { mkdir, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { tempWorkspace } from "../../test-support/cli.js";
import type { CliContext } from "../context.js";
import { UsageError } from "../exit-codes.js";
import { findTranscript } from "./find-transcript.js";

let root: string;
let sessions: string;
/** Only what findTranscript reads: the workspace root and the current folder. */
const ctx = (cwd = root) => ({ root, io: { cwd } }) as unknown as CliContext;

/** A transcript `name` in the sessions folder, last modified `minutesAgo` minutes ago. */
async function saved(name: string, minutesAgo: number): Promise<string> {
  const file = join(sessions, name);
  await writeFile(file, '{"type":"session"}\n');
  const when = new Date(Date.now() - minutesAgo * 60_000);
  await utimes(file, when, when);
  return file;
}

beforeEach(async () => {
  root = await tempWorkspace();
  sessions = join(root, ".toolgate", "sessions");
});

describe("findTranscript", () => {
  it("says there are no saved sessions when the folder is missing or has none that match", async () => {
    const none = `no saved sessions in ${sessions}`;
    await expect(findTranscript(ctx(), undefined)).rejects.toThrowError(new UsageError(none));
    await mkdir(sessions, { recursive: true });
    await saved("20260101-100000-run-aaaaaa.jsonl", 5);
    await writeFile(join(sessions, "notes-chat.txt"), "not a transcript");
    await expect(findTranscript(ctx(), undefined, "-chat")).rejects.toThrowError(new UsageError(none));
  });

  it("picks the newest by modification time, among those with the label when one is given", async () => {
    await mkdir(sessions, { recursive: true });
    const oldChat = await saved("20260101-100000-chat-aaaaaa.jsonl", 30);
    const newChat = await saved("20260101-090000-chat-bbbbbb.jsonl", 10);
    const newestRun = await saved("20260101-110000-run-cccccc.jsonl", 1);
    expect(await findTranscript(ctx(), undefined, "-chat")).toBe(newChat);
    expect(await findTranscript(ctx(), undefined)).toBe(newestRun);
    // Same modification time: the later name (names start with the date and time) wins.
    const when = new Date(Date.now() - 60 * 60_000);
    await utimes(oldChat, when, when);
    await utimes(newChat, when, when);
    expect(await findTranscript(ctx(), undefined, "-chat")).toBe(oldChat);
  });

  it("takes a path (from the current folder), a session id, or an id with .jsonl", async () => {
    await mkdir(sessions, { recursive: true });
    const file = await saved("20260101-100000-chat-aaaaaa.jsonl", 1);
    expect(await findTranscript(ctx(), "20260101-100000-chat-aaaaaa")).toBe(file);
    expect(await findTranscript(ctx(), "20260101-100000-chat-aaaaaa.jsonl")).toBe(file);
    expect(
      await findTranscript(ctx(join(root, ".toolgate")), "sessions/20260101-100000-chat-aaaaaa.jsonl"),
    ).toBe(file);
    const elsewhere = join(await tempWorkspace(), "kept.jsonl");
    await writeFile(elsewhere, "{}\n");
    expect(await findTranscript(ctx(), elsewhere)).toBe(elsewhere);
  });

  it("refuses an unknown session, and a folder where a file is meant, saying where it looked", async () => {
    await mkdir(join(sessions, "a-folder.jsonl"), { recursive: true });
    for (const given of ["nope", "a-folder.jsonl"]) {
      await expect(findTranscript(ctx(), given)).rejects.toThrowError(
        new UsageError(`no transcript ${given} (looked in the current folder and ${sessions})`),
      );
    }
  });
});
