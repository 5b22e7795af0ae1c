/**
 * `toolgate plan` through the real binary: the response read from a file or stdin, the scope, a routing plan,
 * the configured default tool, and a missing file.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempWorkspace, toolgate } from "../../test-support/cli.js";

const TIMEOUT = 120_000;

describe("toolgate plan", () => {
  it.each<{ note: string; files: Record<string, string>; args: string[]; want: object }>([
    {
      note: "reads the response file and plans (thinking stripped)",
      files: { "reply.txt": "<think>不需要 web_fetch</think>用 jira_fetch 查 PROJ-9" },
      args: ["--query", "PROJ-9 的状态", "--response-file", "reply.txt"],
      want: { method: "text", calls: [{ name: "jira_fetch", args: { issue_key: "PROJ-9" } }] },
    },
    {
      note: "uses --tools as the scope",
      files: { "reply.txt": "jira_fetch" },
      args: ["--query", "PROJ-9", "--response-file", "reply.txt", "--tools", "grep", "--round", "1"],
      want: { method: "none", skipped: [{ name: "jira_fetch", reason: "not in the caller's scope" }] },
    },
    {
      note: "applies --routing",
      files: {},
      args: [
        "--query",
        "q",
        "--routing",
        '{"sub_questions":["a?","b?"],"suggested_tools":["vector_search"]}',
      ],
      want: { method: "routing" },
    },
    {
      note: "builds no Confluence call when the question leaves nothing to search for (issue 30)",
      files: {},
      args: [
        "--query",
        "wiki?",
        "--routing",
        '{"sub_questions":["wiki?"],"suggested_tools":["confluence_fetch"]}',
        "--tools",
        "confluence_fetch",
      ],
      want: {
        calls: [],
        skipped: [{ name: "confluence_fetch", reason: expect.stringContaining("nothing to search for") }],
      },
    },
    {
      note: "searches Confluence for what the question asks, without the words pointing there (issue 30)",
      files: { "reply.txt": "I will use confluence_fetch" },
      args: [
        "--query",
        "find the onboarding guide in confluence",
        "--response-file",
        "reply.txt",
        "--tools",
        "confluence_fetch",
      ],
      want: { calls: [{ name: "confluence_fetch", args: { query: "onboarding guide" } }] },
    },
    {
      note: "uses [planner] default_tool from the config",
      files: { "reply.txt": "hmm", ".toolgate/config.toml": '[planner]\ndefault_tool = "local_file_qa"\n' },
      args: ["--query", "why?", "--response-file", "reply.txt"],
      want: { method: "fallback", calls: [{ name: "local_file_qa", args: { query: "why?" } }] },
    },
  ])(
    "$note",
    async ({ files, args, want }) => {
      const ws = await tempWorkspace(files);
      const r = await toolgate(["plan", ...args, "--json", "--workspace", ws], { cwd: ws });
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
      expect(JSON.parse(r.stdout)).toMatchObject(want);
    },
    TIMEOUT,
  );

  it(
    "reports a missing response file with exit 2",
    async () => {
      const ws = await tempWorkspace();
      const r = await toolgate(
        ["plan", "--query", "q", "--response-file", "missing.txt", "--workspace", ws],
        {
          cwd: ws,
        },
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`toolgate: cannot read the response file ${join(ws, "missing.txt")} (ENOENT)\n`);
    },
    TIMEOUT,
  );
});
