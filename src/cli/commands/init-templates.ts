/**
 * @module cli/commands/init-templates
 * The starter files `toolgate init` writes: a commented `.toolgate/policy.toml` (read-only tools allowed,
 * an allow-list of read-only shell commands, destructive commands denied, everything else asked) and a
 * commented `.toolgate/config.toml`. Every rule carries `match` / `not_match` examples, checked when the
 * policy loads, so an edit that breaks a rule's meaning is a load error. Tests load both with the real
 * loaders.
 */
import { DEFAULT_READ_ASK_PATTERNS } from "../../workspace/index.js";

const tomlList = (items: readonly string[]): string => `[${items.map((s) => JSON.stringify(s)).join(", ")}]`;

/** Shell commands whose every option only reads (no option writes, deletes or runs another program). */
export const READ_ONLY_COMMANDS: readonly string[] = [
  "ls",
  "pwd",
  "cat",
  "head",
  "tail",
  "wc",
  "git status",
  "git diff",
  "git log",
  "git show",
];

/** Commands refused wherever they appear (`a && rm x`, `$(rm x)`, `sudo rm x`, `bash -c 'rm x'`). */
export const DESTRUCTIVE_COMMANDS: readonly string[] = [
  "rm",
  "rmdir",
  "shred",
  "dd",
  "mkfs",
  "sudo",
  "git push --force",
  "git push -f",
  "git reset --hard",
  "git clean",
];

export const POLICY_TEMPLATE = `# toolgate policy — written by \`toolgate init\`; edit freely.
# Reference: docs/policy.md in toolgate's repository (rules, conditions, shell commands).
#
# Every call is decided here: "allow" runs it, "ask" asks you (on a terminal; \`--yes\` answers yes in
# scripts), "deny" refuses it. A matching deny always wins; rules naming a tool are checked before
# \`tool = "*"\` rules; among rules of the same level the stricter decision wins; no match → \`default\`.
#
# \`match\` / \`not_match\` are example calls checked when this file loads: if an edit changes what a rule
# means, toolgate refuses to start and names the rule. Check a call without running it:
#   toolgate policy check shell '{"command":"git status"}'
# Check this file: toolgate policy validate .toolgate/policy.toml

default = "ask"                      # no rule matched: ask (writes, edits, web, MCP tools, other commands)

# Tools that only look (kinds read, search, think): read_file, read_many_files, ls, glob, grep.
[[rules]]
name = "read-only-tools"
tool = "*"
kind = ["read", "search", "think"]
decision = "allow"
match = [
  { tool = "read_file", kind = "read", args = { path = "README.md" } },
  { tool = "grep", kind = "search", args = { pattern = "TODO" } },
]
not_match = [
  { tool = "write_file", kind = "edit", args = { path = "README.md" } },
  { tool = "shell", kind = "execute", args = { command = "ls" } },
]

# ...except files that may hold secrets: reading them asks first.
[[rules]]
name = "secret-files-ask"
tool = ["read_file", "grep"]
decision = "ask"
when.path = { glob = ${tomlList(DEFAULT_READ_ASK_PATTERNS)} }
match = [{ tool = "read_file", args = { path = ".env" } }, { tool = "grep", args = { pattern = "KEY", path = "deploy/id_rsa" } }]
not_match = [{ tool = "read_file", args = { path = "README.md" } }]

[[rules]]
name = "secret-files-ask-many"
tool = "read_many_files"
decision = "ask"
when.paths = { glob = ${tomlList(DEFAULT_READ_ASK_PATTERNS)} }
match = [{ args = { paths = ["README.md", ".env.local"] } }]
not_match = [{ args = { paths = ["README.md", "src/index.ts"] } }]

# Read-only shell commands run without asking — only when EVERY sub-command of the line is one of these
# (\`git status && ls\` runs; \`git status; touch x\` asks). Redirections, substitutions, wrappers
# (\`bash -c\`, \`env\`, \`xargs\`...) are asked about even when the words match. Add your own, e.g. "npm test".
[[rules]]
name = "read-only-commands"
tool = "shell"
decision = "allow"
when.command = { prefix = ${tomlList(READ_ONLY_COMMANDS)} }
match = [{ args = { command = "git status && ls -la" } }, { args = { command = "git log --oneline -5" } }]
not_match = [{ args = { command = "git status; touch x" } }, { args = { command = "git push" } }]

# \`git diff/log/show --output=FILE\` writes a file: ask about it.
[[rules]]
name = "git-output-asks"
tool = "shell"
decision = "ask"
when.command = { glob = "git *--output*" }
match = [{ args = { command = "git diff --output=patch.diff" } }]
not_match = [{ args = { command = "git diff HEAD~1" } }]

# Destructive commands are refused wherever they appear: \`a && rm x\`, \`echo $(rm -rf /)\`, \`sudo rm x\`.
# Deny the command name (\`rm\`), not one spelling of its flags (\`rm -rf\` would miss \`rm -fr\`).
[[rules]]
name = "destructive-commands"
tool = "shell"
decision = "deny"
when.command = { prefix = ${tomlList(DESTRUCTIVE_COMMANDS)} }
message = "destructive commands are denied by .toolgate/policy.toml"
match = [{ args = { command = "ls && rm -fr build" } }, { args = { command = "git push --force origin main" } }]
not_match = [{ args = { command = "git push origin main" } }, { args = { command = "ls -la" } }]

# Examples to adapt (uncomment, keep or change the examples):
#
# [[rules]]                          # let the agent edit sources without asking
# name = "edit-sources"
# tool = ["write_file", "edit_file"]
# decision = "allow"
# when.path = { glob = "src/**" }
# match = [{ tool = "edit_file", args = { path = "src/app.ts" } }]
# not_match = [{ tool = "write_file", args = { path = "package.json" } }]
#
# [[rules]]                          # fetch documentation sites without asking
# name = "docs-sites"
# tool = "web_fetch"
# decision = "allow"
# when.url = { host = ["docs.python.org", "*.mozilla.org"] }
# match = [{ args = { url = "https://developer.mozilla.org/en-US/" } }]
# not_match = [{ args = { url = "https://example.com/" } }]
`;

export const CONFIG_TEMPLATE = `# toolgate settings — written by \`toolgate init\`; edit freely.
# Reference: docs/configuration.md in toolgate's repository. Unknown sections or keys are errors (a typo
# never silently turns a setting off). Policy lives in policy.toml, not here.

# The model \`toolgate chat\` and \`toolgate run\` talk to. These are the defaults: Ollama on this machine.
[llm]
provider = "ollama"                  # "ollama" | "openai" (any OpenAI-compatible server)
base_url = "http://127.0.0.1:11434"  # e.g. "http://127.0.0.1:8080/v1" for llama.cpp's llama-server
model = "qwen3"                      # any model with tool support: qwen3, llama3.1, mistral-nemo, ...
# api_key_env = "OPENAI_API_KEY"     # the NAME of the variable holding the key — never the key itself

# [planner]
# routing = true                     # route first: query type, sub-questions, suggested tools

# [web]
# allow_hosts = ["127.0.0.1:4000"]   # private or loopback hosts web_fetch may reach (default: none)
# timeout_ms = 30000

# [search]
# backend = "duckduckgo"             # "duckduckgo" | "searxng" | "brave"

# [shell]
# timeout_ms = 120000
# env = ["CI"]                       # host variables passed to commands (still sanitized)

# [files]
# protected = ["deploy/"]            # extra paths no tool may write (added to the built-in list)

# [limits]
# max_chars = 64000                  # output given to the model is truncated past these
# max_lines = 2000

# [audit]
# file = ".toolgate/audit.jsonl"     # one JSON line per call: tool, decision, rule, outcome, duration

# [confirm]
# timeout_ms = 300000                # how long an \`ask\` waits; no answer is a deny
`;

/** Lines `toolgate init` adds to `.gitignore`: session transcripts and agent state stay out of commits. */
export const GITIGNORE_LINES: readonly string[] = [".toolgate/sessions/", ".toolgate/state/"];
