/**
 * Issue 27 item 1 end to end: a shell command's globs and braces are expanded at decide time, the words are
 * checked, and the command runs with exactly those words — through `createToolgate` → `gate.execute` with
 * the real shell tool, and through the built binary. A file named `-i` planted between the decision and the
 * run (here: while the person is asked) changes nothing; the same command run by bash directly would have
 * read it as `sed -i`.
 */
import { execFileSync } from "node:child_process";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Toolgate } from "../index.js";
import { tempWorkspace, toolgate } from "../test-support/cli.js";
import { jsonLines, openGate } from "./fixtures.js";

const POLICY = `default = "ask"

[[rules]]
tool = "shell"
decision = "allow"
when.command = { prefix = ["printf", "ls", "sed -n"] }

[[rules]]
tool = "shell"
decision = "ask"
when.command = { prefix = ["sed -n 1,2p"] }
`;
const TEXT = "one\ntwo\nthree\nfour\n";

let root: string;
let gate: Toolgate;
beforeAll(async () => {
  root = await tempWorkspace({ "a.txt": TEXT, "b.txt": TEXT, ".toolgate/policy.toml": POLICY });
  gate = await openGate(root, { policyText: POLICY });
});
afterAll(async () => {
  await gate.close();
  await rm(root, { recursive: true, force: true });
});

describe("through the pipeline", () => {
  it("an allowed glob runs as the words the policy checked, and the result says so", async () => {
    const result = await gate.execute({ name: "shell", args: { command: "printf '%s\\n' *.txt" } });
    expect(result).toMatchObject({ ok: true, decision: "allow" });
    expect(result.reason).toContain('"command" runs as checked');
    expect(result.llmContent).toContain(
      "[ran as the policy checked it — command: printf '%s\\n' a.txt b.txt]",
    );
    expect(result.llmContent).toContain("a.txt\nb.txt");
  });

  it("a file named -i next to the glob makes sed ask, naming sed -i", async () => {
    await writeFile(join(root, "-i"), "");
    try {
      const checked = await gate.check({ name: "shell", args: { command: "sed -n 1,3p *" } });
      expect(checked).toMatchObject({ ok: true, decision: { decision: "ask" } });
      if (checked.ok) expect(checked.decision.reason).toContain("sed -i edits files in place");
    } finally {
      await rm(join(root, "-i"));
    }
  });

  it("a file planted after the decision changes nothing: the approved words run", async () => {
    let shown: string | undefined;
    const result = await gate.execute(
      { name: "shell", args: { command: "sed -n 1,2p *" } },
      {
        confirm: async (request) => {
          shown = request.details.command;
          await writeFile(join(root, "-i"), "");
          return { approved: true };
        },
      },
    );
    try {
      expect(shown).toBe("sed -n 1,2p a.txt b.txt");
      expect(result).toMatchObject({ ok: true, decision: "ask" });
      expect(await readFile(join(root, "a.txt"), "utf8")).toBe(TEXT);
      expect(await readFile(join(root, "b.txt"), "utf8")).toBe(TEXT);
      // sed reads the two files as one stream: the first two lines, nothing written back.
      expect(result.llmContent).toContain("one\ntwo\n[exit code 0]");
    } finally {
      await rm(join(root, "-i"));
    }
  });

  it("the same command run by bash after the planting would have edited the files (the attack is real)", async () => {
    const copy = await tempWorkspace({ "a.txt": TEXT, "b.txt": TEXT, "-i": "" });
    try {
      execFileSync("bash", ["-c", "sed -n 1,2p *"], { cwd: copy });
      expect(await readFile(join(copy, "a.txt"), "utf8")).toBe("one\ntwo\n");
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });
});

describe("through the binary", () => {
  it("policy check asks for sed over a glob next to -i, naming the finding", async () => {
    await writeFile(join(root, "-i"), "");
    try {
      const r = await toolgate(
        [
          "policy",
          "check",
          "shell",
          JSON.stringify({ command: "sed -n 1,3p *" }),
          "--json",
          "--workspace",
          root,
        ],
        { cwd: root },
      );
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { decision: string; reason: string };
      expect(out.decision).toBe("ask");
      expect(out.reason).toContain("sed -i edits files in place");
    } finally {
      await rm(join(root, "-i"));
    }
  });

  it("call runs an allowed brace and glob command as checked", async () => {
    const r = await toolgate(
      [
        "call",
        "shell",
        JSON.stringify({ command: "printf '<%s>' {x,y} *.txt" }),
        "--json",
        "--workspace",
        root,
      ],
      { cwd: root },
    );
    expect(r.code, r.stderr).toBe(0);
    const [out] = jsonLines(r.stdout);
    expect(out).toMatchObject({ ok: true, decision: "allow" });
    expect(out!.llmContent).toContain("<x><y><a.txt><b.txt>");
    expect(out!.llmContent).toContain("command: printf '<%s>' x y a.txt b.txt");
  });
});
