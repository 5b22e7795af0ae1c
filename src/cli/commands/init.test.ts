import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfigFile, parseConfig } from "../../config/index.js";
import { parsePolicy } from "../../policy/index.js";
import { REPO_ROOT, tempWorkspace } from "../../test-support/cli.js";
import { toolgateInProcess as toolgate } from "../../test-support/cli-in-process.js";
import { createToolgate } from "../../toolgate.js";
import { applyPlan, missingIgnoreLines, planInit } from "./init.js";
import { CONFIG_TEMPLATE, POLICY_TEMPLATE } from "./init-templates.js";

const dirs: string[] = [];
async function workspace(files: Record<string, string> = {}): Promise<string> {
  const dir = await tempWorkspace(files, "tg-init-");
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** Uncomments `# key = value`, `# [section]` and `# [[rules]]` lines (the examples a user would enable). */
function uncommentExamples(text: string): string {
  return text
    .split("\n")
    .map((line) => (/^# (\[|[a-z_.]+ = )/.test(line) ? line.slice(2) : line))
    .join("\n");
}

describe("toolgate init", () => {
  it("in a fresh folder writes a policy and config that load with the real loaders, and a .gitignore", async () => {
    const dir = await workspace();
    const run = await toolgate(["init", "--json"], { cwd: dir });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      files: [
        { path: join(dir, ".toolgate", "policy.toml"), action: "created" },
        { path: join(dir, ".toolgate", "config.toml"), action: "created" },
        {
          path: join(dir, ".gitignore"),
          action: "created",
          added: [".toolgate/sessions/", ".toolgate/state/"],
        },
      ],
      trusted: [join(dir, ".toolgate", "policy.toml"), join(dir, ".toolgate", "config.toml")],
    });
    expect(await readFile(join(dir, ".gitignore"), "utf8")).toBe(
      "# toolgate: session transcripts and agent state\n.toolgate/sessions/\n.toolgate/state/\n",
    );
    const config = await loadConfigFile(join(dir, ".toolgate", "config.toml"));
    expect(config).toEqual({
      llm: { provider: "ollama", base_url: "http://127.0.0.1:11434", model: "qwen3" },
    });

    // The gate picks both files up by itself (as every command does) and decides as the comments say.
    const gate = await createToolgate({ roots: [dir] });
    try {
      expect(gate.policy.source).toBe(join(dir, ".toolgate", "policy.toml"));
      const cases: [string, Record<string, unknown>, string][] = [
        ["read_file", { path: "README.md" }, "allow"],
        ["grep", { pattern: "TODO" }, "allow"],
        ["ls", {}, "allow"],
        ["read_file", { path: ".env" }, "ask"],
        ["read_many_files", { paths: ["a.md", "id_rsa"] }, "ask"],
        ["write_file", { path: "a.txt", content: "x" }, "ask"],
        ["web_fetch", { url: "https://example.com/" }, "ask"],
        ["shell", { command: "git status && ls -la" }, "allow"],
        ["shell", { command: "git log --oneline | head -5" }, "allow"],
        ["shell", { command: "npm test" }, "ask"],
        ["shell", { command: "ls > out.txt" }, "ask"],
        ["shell", { command: "git diff --output=p.diff" }, "ask"],
        ["shell", { command: "ls && rm -fr build" }, "deny"],
        ["shell", { command: "echo $(rm -rf /)" }, "deny"],
        ["shell", { command: "sudo ls" }, "deny"],
        ["shell", { command: "git push -f origin main" }, "deny"],
        ["shell", { command: "git clean -fdx" }, "deny"],
      ];
      for (const [name, args, want] of cases) {
        const result = await gate.check({ name, args });
        if (!result.ok) throw new Error(`${name} ${JSON.stringify(args)}: ${result.error.message}`);
        expect({ name, args, decision: result.decision.decision }).toEqual({ name, args, decision: want });
      }
    } finally {
      await gate.close();
    }

    const validate = await toolgate(["policy", "validate", ".toolgate/policy.toml"], { cwd: dir });
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain("valid (7 rules, default ask)");
  }, 120_000); // two commands and the bash grammar: generous on a loaded machine

  it("writes text that says what happened and what to try next", async () => {
    const dir = await workspace();
    const run = await toolgate(["init"], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("created     .toolgate/policy.toml — ");
    expect(run.stdout).toContain("created     .gitignore — ignores .toolgate/sessions/, .toolgate/state/");
    expect(run.stdout).toContain(`toolgate policy check shell '{"command":"git status"}'`);
  });

  it("refuses when the policy or config exists, naming the files and --force, and changes nothing", async () => {
    const dir = await workspace({ ".toolgate/policy.toml": 'default = "deny"\n' });
    const run = await toolgate(["init"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      `toolgate: .toolgate/policy.toml already exists in ${dir}; nothing was written. Pass --force to overwrite (your edits there would be lost).\n`,
    );
    expect(await readFile(join(dir, ".toolgate", "policy.toml"), "utf8")).toBe('default = "deny"\n');
    expect(await exists(join(dir, ".toolgate", "config.toml"))).toBe(false);
    expect(await exists(join(dir, ".gitignore"))).toBe(false);

    await writeFile(join(dir, ".toolgate", "config.toml"), "[llm]\n");
    const both = await toolgate(["init"], { cwd: dir });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain(".toolgate/policy.toml and .toolgate/config.toml already exist");
    expect(await readFile(join(dir, ".toolgate", "config.toml"), "utf8")).toBe("[llm]\n");
  });

  it("--force overwrites the starter files; a second run leaves .gitignore as it is", async () => {
    const dir = await workspace({
      ".toolgate/policy.toml": 'default = "deny"\n',
      ".toolgate/config.toml": "[llm]\n",
    });
    const first = await toolgate(["init", "--force", "--json"], { cwd: dir });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).files.map((f: { action: string }) => f.action)).toEqual([
      "overwritten",
      "overwritten",
      "created",
    ]);
    expect(await readFile(join(dir, ".toolgate", "policy.toml"), "utf8")).toBe(POLICY_TEMPLATE);
    expect(await readFile(join(dir, ".toolgate", "config.toml"), "utf8")).toBe(CONFIG_TEMPLATE);
    const gitignore = await readFile(join(dir, ".gitignore"), "utf8");

    const again = await toolgate(["init", "--force", "--json"], { cwd: dir });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).files[2]).toEqual({ path: join(dir, ".gitignore"), action: "unchanged" });
    expect(await readFile(join(dir, ".gitignore"), "utf8")).toBe(gitignore);
  });

  it("merges into an existing .gitignore: keeps it, adds only what is missing, keeps CRLF", async () => {
    const dir = await workspace({ ".gitignore": "node_modules/\r\n/.toolgate/state" });
    const run = await toolgate(["init", "--json"], { cwd: dir });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).files[2]).toEqual({
      path: join(dir, ".gitignore"),
      action: "updated",
      added: [".toolgate/sessions/"],
    });
    expect(await readFile(join(dir, ".gitignore"), "utf8")).toBe(
      "node_modules/\r\n/.toolgate/state\r\n\r\n# toolgate: session transcripts and agent state\r\n.toolgate/sessions/\r\n",
    );
  });

  it("--workspace DIR writes there; --policy does not apply; extra words are bad usage", async () => {
    const dir = await workspace();
    const elsewhere = await toolgate(["init", "--workspace", dir], { cwd: REPO_ROOT });
    expect(elsewhere.code).toBe(0);
    expect(await exists(join(dir, ".toolgate", "policy.toml"))).toBe(true);

    const other = await workspace();
    const withPolicy = await toolgate(["--policy", "p.toml", "init"], { cwd: other });
    expect(withPolicy.code).toBe(2);
    expect(withPolicy.stderr).toContain("--policy and --config do not apply");
    const extra = await toolgate(["init", "now"], { cwd: other });
    expect(extra.code).toBe(2);
    expect(extra.stderr).toBe("toolgate: usage: toolgate init [--force] [--no-trust]\n");
    expect(await exists(join(other, ".toolgate"))).toBe(false);
  });
});

describe("applyPlan", () => {
  it("a file that appears after the checks is not clobbered, and what this run placed is taken back", async () => {
    const dir = await workspace();
    const plan = await planInit(dir, false);
    // Another process writes the config between the checks and the writes.
    await mkdir(join(dir, ".toolgate"));
    await writeFile(join(dir, ".toolgate", "config.toml"), "[llm]\n");
    await expect(applyPlan(dir, plan)).rejects.toThrow(
      ".toolgate/config.toml appeared while init was running; nothing was written (run init again)",
    );
    expect(await readFile(join(dir, ".toolgate", "config.toml"), "utf8")).toBe("[llm]\n");
    expect(await readdir(join(dir, ".toolgate"))).toEqual(["config.toml"]);
    expect(await readdir(dir)).toEqual([".toolgate"]);
  });
});

describe("the starter templates", () => {
  it("starts with the built-in policy's rules as the engine has them (one copy: policy/builtin/*.toml)", async () => {
    const gate = await createToolgate({ roots: [REPO_ROOT], policy: false });
    try {
      const options = { plugins: gate.policy.plugins, roots: gate.roots, tools: gate.registry.list() };
      const starter = await parsePolicy(POLICY_TEMPLATE, "policy.toml", options);
      const builtin = gate.policy.rules.map((rule) => rule.spec);
      expect(builtin.map((spec) => spec.name)).toEqual([
        "read-only",
        "sensitive-read",
        "sensitive-read-many",
        "sensitive-grep",
      ]);
      expect(starter.rules.slice(0, builtin.length).map((rule) => rule.spec)).toEqual(builtin);
      expect(starter.defaultDecision).toBe(gate.policy.defaultDecision);
      expect(starter.rules.slice(builtin.length).map((rule) => rule.spec.name)).toEqual([
        "read-only-commands",
        "git-output-asks",
        "destructive-commands",
      ]);
    } finally {
      await gate.close();
    }
  });

  it("the commented-out examples are valid too once uncommented", async () => {
    const gate = await createToolgate({ roots: [REPO_ROOT], policy: false });
    try {
      const policy = await parsePolicy(uncommentExamples(POLICY_TEMPLATE), "policy.toml", {
        plugins: gate.policy.plugins,
        roots: gate.roots,
        tools: gate.registry.list(),
      });
      // Like the built-in default, every rule carries examples that are checked at load.
      for (const rule of policy.rules) {
        expect({ rule: rule.ref.id, match: (rule.spec.match ?? []).length > 0 }).toEqual({
          rule: rule.ref.id,
          match: true,
        });
        expect({ rule: rule.ref.id, notMatch: (rule.spec.not_match ?? []).length > 0 }).toEqual({
          rule: rule.ref.id,
          notMatch: true,
        });
      }
      const ids = policy.rules.map((r) => r.ref.id);
      expect(ids).toContain("policy.toml#edit-sources");
      expect(ids).toContain("policy.toml#docs-sites");
    } finally {
      await gate.close();
    }
    const config = parseConfig(uncommentExamples(CONFIG_TEMPLATE), "config.toml");
    expect(Object.keys(config).sort()).toEqual(
      ["audit", "confirm", "files", "limits", "llm", "planner", "search", "shell", "web"].sort(),
    );
  });
});

describe("the starter templates' references", () => {
  it.each([
    ["policy.toml", POLICY_TEMPLATE, "docs/policy.md"],
    ["config.toml", CONFIG_TEMPLATE, "docs/configuration.md"],
  ])("%s names a page of the repository that exists", async (_name, template, page) => {
    const reference = /^# Reference: (\S+)/m.exec(template)?.[1];
    expect(reference).toBe(page);
    expect(await exists(join(REPO_ROOT, page))).toBe(true);
  });
});

describe("missingIgnoreLines", () => {
  const rows: [string, string, string[]][] = [
    ["empty file", "", [".toolgate/sessions/", ".toolgate/state/"]],
    ["both present", ".toolgate/sessions/\n.toolgate/state/\n", []],
    ["anchored and without slash", "/.toolgate/sessions\n.toolgate/state\n", []],
    ["with /** suffix", ".toolgate/state/**\n", [".toolgate/sessions/"]],
    ["whole folder ignored", "/.toolgate/\n", []],
    ["only a similar name", ".toolgate/sessions-old/\n", [".toolgate/sessions/", ".toolgate/state/"]],
    ["surrounding spaces", "  .toolgate/sessions/  \r\n", [".toolgate/state/"]],
  ];
  it.each(rows)("%s", (_note, text, want) => {
    expect(missingIgnoreLines(text)).toEqual(want);
  });
});
