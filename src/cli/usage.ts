/**
 * @module cli/usage
 * Each command's usage line, said once: `--help` lists them (`COMMANDS` in run.ts), each command's own
 * `--help` and usage errors quote them. `chat` and `run` are written from their flag tables, so a flag or a
 * provider added there shows here too. Loads no command: `--help` reads it.
 */
import { CHAT_OPTIONS, RUN_OPTIONS } from "./chat/session-options.js";
import { usageFlags } from "./options.js";

const { resume: _resume, ...chatFlags } = CHAT_OPTIONS;

export const USAGE = {
  chat: `toolgate chat [--resume [SESSION]] ${usageFlags(chatFlags)}`,
  run: `toolgate run "TASK" ${usageFlags(RUN_OPTIONS)}`,
  replay: "toolgate replay [FILE|SESSION_ID]",
  tools: "toolgate tools",
  // The provider names are core's PROVIDER_NAMES (run.test.ts holds them equal); --help loads no core.
  schema: "toolgate schema --provider openai|openai-responses|anthropic|gemini|ollama [--report]",
  call: "toolgate call TOOL [ARGS_JSON|-] [--yes] | toolgate call --batch FILE|- [--yes]",
  policy: "toolgate policy check TOOL [ARGS_JSON] [--explain] | toolgate policy validate FILE [--strict]",
  plan: "toolgate plan --query Q [--response-file F|-] [--routing JSON] [--tools A,B] [--round N]",
  agents: "toolgate agents list | toolgate agents resolve AGENT [--depth N]",
  mcp: "toolgate mcp [--pool] [--http HOST:PORT [--allow-remote] [--allow-origin URL]... [--session-idle-ms N] [--max-sessions N] [--max-sessions-per-token N]] | toolgate mcp list",
  trust:
    "toolgate trust [DIR] | toolgate trust --show [DIR] | toolgate trust --list | toolgate trust --remove DIR",
  hooks: "toolgate hooks list",
  memory: "toolgate memory list|get KEY|set KEY VALUE|delete KEY [--scope project|user]",
  todos: "toolgate todos list|add TEXT|complete ID|remove ID|update ID [--text T] [--status S]",
  approvals:
    "toolgate approvals list [--all] | toolgate approvals show ID | toolgate approvals watch | toolgate approvals approve ID [--always] [--by NAME] | toolgate approvals deny ID [--reason TEXT] [--by NAME] | toolgate approvals rules [--remove ID]",
  audit:
    "toolgate audit tail [-n N | --lines N] [--follow] | toolgate audit verify [FILE] | toolgate audit export FILE [--trim]",
  init: "toolgate init [--force] [--no-trust]",
  models:
    "toolgate models pull [NAME|URL] [--sha256 HEX] [--yes] | toolgate models list | toolgate models rm NAME",
  doctor: "toolgate doctor",
  console:
    "toolgate console [--listen HOST:PORT] [--allow-remote [--public-host NAME]...] [--tls-cert FILE --tls-key FILE | --insecure-http] [--audit FILE]",
} as const;
