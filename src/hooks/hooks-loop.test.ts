/**
 * Hook scripts through the agent loop: `toolgate run` (the real binary) against a scripted model server on
 * 127.0.0.1, with the user's `~/.claude/settings.json`, `~/.gemini/settings.json` and `~/.codex/hooks.json`
 * naming the bash, node and python3 scripts of testdata/scripts. Each tool call the model makes passes the hooks, and the model's next
 * request carries what they decided: a deny's reason, a withheld output, a hook's added context.
 */
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatBody, type ModelServer, startModelServer } from "../llm/testdata/model-server.js";
import { REPO_ROOT, tempWorkspace, toolgate } from "../test-support/cli.js";

const SCRIPTS = join(REPO_ROOT, "src", "hooks", "testdata", "scripts");
const script = (name: string) => join(SCRIPTS, name);
const hook = (name: string) => ({ type: "command", command: script(name) });

let server: ModelServer;
let home: string;
beforeAll(async () => {
  server = await startModelServer(["test-model"]);
  home = await mkdtemp(join(tmpdir(), "tg-hooks-loop-home-"));
  await mkdir(join(home, ".claude"));
  await mkdir(join(home, ".gemini"));
  await mkdir(join(home, ".codex"));
  await writeFile(
    join(home, ".codex", "hooks.json"),
    JSON.stringify({
      hooks: { PreToolUse: [{ matcher: "Edit|Write", hooks: [hook("codex-patch-guard.py")] }] },
    }),
  );
  await writeFile(
    join(home, ".claude", "settings.json"),
    JSON.stringify({
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [hook("block-rm-rf.sh"), hook("no-push-main.js")] }],
        PostToolUse: [{ matcher: "Bash", hooks: [hook("secret-scan.py")] }],
      },
    }),
  );
  await writeFile(
    join(home, ".gemini", "settings.json"),
    JSON.stringify({
      hooks: { BeforeTool: [{ matcher: "write_file", hooks: [hook("protect-env.py")] }] },
    }),
  );
});
afterAll(async () => server.close());

/** The tool result the model's latest request carries. */
const lastResult = (body: ChatBody) => String(body.messages.at(-1)?.content);
const shell = (command: string) => ({ toolCalls: [{ name: "shell", arguments: { command } }] });

describe("hooks in the agent loop (toolgate run)", () => {
  it("deny, withhold and add context for the model's calls; a call no hook objects to runs", async () => {
    const root = await tempWorkspace({
      ".toolgate/config.toml": `[llm]\nprovider = "ollama"\nbase_url = "${server.url}"\nmodel = "test-model"\n`,
      ".env.local": "A=1\n",
      "allow.toml": 'default = "allow"\n',
    });
    const seen: string[] = [];
    const next = (reply: object) => (body: ChatBody) => {
      seen.push(lastResult(body));
      return reply;
    };
    server.push(
      shell("rm -rf ~/somewhere"),
      next(shell("git push origin main")),
      next({
        toolCalls: [
          { name: "write_file", arguments: { path: ".env.local", content: "B=2\n", overwrite: true } },
        ],
      }),
      next({
        toolCalls: [
          {
            name: "edit_file",
            arguments: { path: ".env.local", edits: [{ oldText: "A=1", newText: "A=3" }] },
          },
        ],
      }),
      next(shell("echo key=AKIAABCDEFGHIJKLMNOP")),
      next(shell("echo hello")),
      next({ text: "Done, some calls were refused." }),
    );
    const r = await toolgate(["--policy", "allow.toml", "run", "tidy", "up"], {
      cwd: root,
      env: { HOME: home },
    });
    expect(server.remaining()).toBe(0);
    expect(r.stdout).toBe("Done, some calls were refused.\n");
    // A call was refused: exit 3, as for any denial in run.
    expect(r.code, r.stderr).toBe(3);
    expect(seen[0]).toContain(
      `denied because hook \`${script("block-rm-rf.sh")}\` said: Blocked: rm -rf on / or ~ is never run`,
    );
    expect(seen[1]).toContain("said: pushes to main go through a pull request");
    expect(seen[2]).toContain("said: edits to .env.local are blocked");
    // The Codex script reads the edit as apply_patch's patch text.
    expect(seen[3]).toContain(
      `hook \`${script("codex-patch-guard.py")}\` said: changes to .env.local are blocked`,
    );
    expect(await readFile(join(root, ".env.local"), "utf8")).toBe("A=1\n");
    // The credential is withheld from the model; the person sees the output.
    expect(seen[4]).toContain(`blocked it: the output holds a credential`);
    expect(seen[4]).not.toContain("AKIAABCDEFGHIJKLMNOP");
    expect(seen[5]).toContain(
      `hello\n[exit code 0]\n\n[context from hook \`${script("secret-scan.py")}\`]\nsecret scan: clean`,
    );
    // The person is told which hook decided (progress on stderr).
    expect(r.stderr).toContain("block-rm-rf.sh");
  });
});
