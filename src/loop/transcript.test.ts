/**
 * Transcript formats: a fixture per format version in `testdata/transcripts/` (version 0 has no `version`
 * field), each read, replayed and turned back into a conversation to resume.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderTranscript } from "./replay.js";
import { historyOf, readTranscript } from "./transcript.js";

const fixture = (name: string) => join(import.meta.dirname, "testdata", "transcripts", name);

describe("transcript fixtures", () => {
  it("reads version 0 (no version field): replays, and resumes every message after the system prompt", async () => {
    const records = await readTranscript(fixture("v0-chat.jsonl"));
    expect(records[0]).toMatchObject({ type: "session", id: "20250601-100000-chat-a1b2c3" });
    expect(records[0]).not.toHaveProperty("version");
    const text = renderTranscript(records);
    expect(text).toContain("you: What is in notes.txt?");
    expect(text).toContain("model: notes.txt says alpha.");
    expect(historyOf(records).map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });

  it("reads version 1: resumes from the last /clear, keeps an incomplete reply, replays every record", async () => {
    const records = await readTranscript(fixture("v1-chat.jsonl"));
    expect(records[0]).toMatchObject({ type: "session", version: 1 });
    expect(historyOf(records)).toEqual([
      { role: "user", content: "Write a long poem." },
      { role: "assistant", content: "Roses are" },
    ]);
    const text = renderTranscript(records);
    expect(text).toContain("you: Write a long poem.");
    expect(text).toContain("(turn ended: incomplete after 1 step(s))");
  });
});
