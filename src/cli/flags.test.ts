/**
 * The command line's flags: per-command help, unknown flags named, the global flags anywhere on the line
 * (`agents list --json`), `call TOOL -` reading stdin, `policy validate --config`. Commands run in-process (the
 * dispatcher the binary runs).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempWorkspace } from "../test-support/cli.js";
import { toolgateInProcess } from "../test-support/cli-in-process.js";
import { COMMANDS } from "./run.js";

const TIMEOUT = 120_000;

describe("toolgate COMMAND --help", () => {
  it(
    "prints that command's usage, flags and examples — not the global help — with exit 0",
    async () => {
      for (const [name, entry] of Object.entries(COMMANDS)) {
        const { help } = await entry.load();
        const r = await toolgateInProcess([name, "--help"]);
        expect({ name, code: r.code, stderr: r.stderr }).toEqual({ name, code: 0, stderr: "" });
        expect(r.stdout.startsWith(`Usage: ${entry.usage.split(" | ")[0]}\n`), r.stdout).toBe(true);
        expect(r.stdout).not.toContain("Global flags (anywhere on the line)");
        for (const flag of Object.keys(help.options))
          expect(r.stdout, `${name} --${flag}`).toContain(`--${flag}`);
        expect(r.stdout).toContain(`\n  ${help.examples[0]}\n`);
      }
    },
    TIMEOUT * 3,
  );

  it(
    "is the same as `toolgate help COMMAND` and `-h` anywhere on the line",
    async () => {
      const a = await toolgateInProcess(["call", "--help"]);
      const b = await toolgateInProcess(["help", "call"]);
      const c = await toolgateInProcess(["-h", "call", "read_file"]);
      expect(b).toEqual(a);
      expect(c).toEqual(a);
      expect(a.stdout).toContain("-y, --yes");
    },
    TIMEOUT,
  );

  it(
    "`toolgate --help` still lists every command and the global flags",
    async () => {
      const r = await toolgateInProcess(["--help"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("Global flags (anywhere on the line):");
      expect(r.stdout).toMatch(/ {2}--config FILE +the settings file/);
      expect(r.stdout).toMatch(/ {2}-V, --version +prints the version/);
    },
    TIMEOUT,
  );
});

describe("flags the command does not take", () => {
  it.each([
    [
      ["call", "read_file", "{}", "--foo"],
      'toolgate: unknown option --foo for "toolgate call" (see toolgate call --help)\n',
    ],
    [["tools", "--all"], 'toolgate: unknown option --all for "toolgate tools" (see toolgate tools --help)\n'],
    [
      ["policy", "check", "ls", "--strict"],
      'toolgate: unknown option --strict for "toolgate policy check" (see toolgate policy --help)\n',
    ],
    [
      ["agents", "resolve", "x", "--depht", "1"],
      'toolgate: unknown option --depht for "toolgate agents resolve" (see toolgate agents --help)\n',
    ],
    [
      ["schema", "--provider"],
      'toolgate: option --provider needs a value for "toolgate schema" (see toolgate schema --help)\n',
    ],
    [
      ["mcp", "list", "--pool"],
      'toolgate: unknown option --pool for "toolgate mcp list" (see toolgate mcp --help)\n',
    ],
    [
      ["doctor", "--fix"],
      'toolgate: unknown option --fix for "toolgate doctor" (see toolgate doctor --help)\n',
    ],
    [["call", "read_file", "--version"], "toolgate: --version takes no command (toolgate --version)\n"],
  ])(
    "%j is refused with exit 2, naming the flag and the command",
    async (args, stderr) => {
      const ws = await tempWorkspace();
      const r = await toolgateInProcess([...args, "--workspace", ws]);
      expect({ code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({ code: 2, stderr, stdout: "" });
    },
    TIMEOUT,
  );
});

describe("global flags anywhere on the line", () => {
  it(
    "`agents list --json` prints JSON (the global --json, not a flag of the sub-command)",
    async () => {
      const ws = await tempWorkspace({
        ".toolgate/agents/reviewer.md": "---\ndescription: Reviews\ntools: [read_file, grep]\n---\nReview.\n",
      });
      for (const args of [
        ["agents", "list", "--json"],
        ["--json", "agents", "list"],
      ]) {
        const r = await toolgateInProcess([...args, "--workspace", ws]);
        expect(r.code).toBe(0);
        expect(JSON.parse(r.stdout)).toEqual([
          {
            name: "reviewer",
            description: "Reviews",
            tools: ["read_file", "grep"],
            max_depth: 2,
            file: join(ws, ".toolgate", "agents", "reviewer.md"),
          },
        ]);
      }
    },
    TIMEOUT,
  );
});

describe("toolgate call TOOL -", () => {
  it(
    "reads the JSON arguments from stdin",
    async () => {
      const ws = await tempWorkspace({ "notes.txt": "alpha\nbeta\n" });
      const r = await toolgateInProcess(["call", "read_file", "-", "--json", "--workspace", ws], {
        input: '{"path":"notes.txt"}\n',
      });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, decision: "allow" });
      expect(JSON.parse(r.stdout).llmContent).toContain("alpha\nbeta");
    },
    TIMEOUT,
  );

  it(
    "refuses stdin that is not JSON with exit 2",
    async () => {
      const ws = await tempWorkspace();
      const r = await toolgateInProcess(["call", "read_file", "-", "--workspace", ws], { input: "{nope" });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^toolgate: ARGS_JSON is not valid JSON: /);
    },
    TIMEOUT,
  );
});

describe("toolgate policy validate --config", () => {
  const POLICY = 'default = "ask"\n\n[[rules]]\ntool = "jira_fetch"\ndecision = "allow"\n';
  const CONFIG = '[jira]\nbase_url = "https://jira.example.com"\ntoken_env = "TG_TEST_JIRA_TOKEN"\n';

  it(
    "validates against the tools the given settings make (jira_fetch exists only when configured)",
    async () => {
      const ws = await tempWorkspace({ "policy.toml": POLICY, "settings.toml": CONFIG });
      const env = { TG_TEST_JIRA_TOKEN: "t", JIRA_BASE_URL: "", JIRA_API_TOKEN: "" };
      const args = ["policy", "validate", join(ws, "policy.toml"), "--strict", "--workspace", ws];
      const without = await toolgateInProcess(args, { env });
      expect(without.code).toBe(2);
      expect(without.stderr).toContain("jira_fetch");
      const withConfig = await toolgateInProcess([...args, "--config", join(ws, "settings.toml")], { env });
      expect({ code: withConfig.code, stderr: withConfig.stderr }).toEqual({ code: 0, stderr: "" });
      expect(withConfig.stdout).toContain("valid (1 rule, default ask)");
    },
    TIMEOUT,
  );

  it(
    "refuses a bad --config with exit 2 naming the file and key",
    async () => {
      const ws = await tempWorkspace({ "policy.toml": POLICY });
      await mkdir(join(ws, "conf"));
      await writeFile(join(ws, "conf", "bad.toml"), "[jira]\nbase = 1\n");
      const r = await toolgateInProcess([
        "policy",
        "validate",
        join(ws, "policy.toml"),
        "--config",
        join(ws, "conf", "bad.toml"),
        "--workspace",
        ws,
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `toolgate: ${join(ws, "conf", "bad.toml")}: unknown key jira.base (known in [jira]: base_url, token_env, email_env, project_keys)\n`,
      );
    },
    TIMEOUT,
  );
});
