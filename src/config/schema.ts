/**
 * @module config/schema
 * The one description of `.toolgate/config.toml`: every section and key with its type, default and meaning,
 * as a zod schema. The file's type ({@link ToolgateConfig}), its validation, the settings with defaults
 * ({@link ToolgateSettings}), the defaults a gate without a config file uses (`defaults.generated.ts`, written
 * from here by `npm run generate`) and `docs/configuration.md` all come from it — to add a setting, add it here.
 */
import { z } from "zod";
import { DEFAULT_CONFIRM_TIMEOUT_MS, DEFAULT_LIMITS } from "../core/index.js";
import { APPROVAL_ROUTES, LLM_PROVIDERS, SANDBOX_MODES, SEARCH_BACKENDS, TOOL_CHOICES } from "./choices.js";
import { HOOK_SETTINGS } from "./hooks-schema.js";

// Leaf types, each with the message a wrong value gets (the key path and the file are added in front).
const text = (description: string) => z.string({ error: "must be a string" }).describe(description);
const flag = (description: string) => z.boolean({ error: "must be true or false" }).describe(description);
const strings = (description: string) =>
  z.array(z.string(), { error: "must be an array of strings" }).describe(description);
const whole = (description: string) =>
  z
    .number({ error: "must be a whole number ≥ 0" })
    .int({ error: "must be a whole number ≥ 0" })
    .min(0, { error: "must be a whole number ≥ 0" })
    .describe(description);
const oneOf = <const T extends readonly [string, ...string[]]>(values: T, description: string) =>
  z
    .enum(values, {
      error: (issue) =>
        `must be one of ${values.map((v) => JSON.stringify(v)).join(", ")}, not ${JSON.stringify(issue.input)}`,
    })
    .describe(description);
/** A string, number or boolean; checked further where it is used (the model settings). */
const scalar = (description: string) =>
  z
    .union([z.string(), z.number(), z.boolean()], { error: "must be a string, number or boolean" })
    .describe(description);
const section = <T extends z.ZodRawShape>(shape: T, description: string) =>
  // An absent section parses as `{}`, so its keys' defaults apply.
  z
    .strictObject(shape)
    .prefault(() => ({}) as never)
    .describe(description);

/**
 * The config file's schema. Keys are the file's (snake_case); `.default` marks the value the gate uses when
 * the key is absent. Keys without a default are optional: the tool that reads them has its own default,
 * said in the description.
 */
export const CONFIG_SCHEMA = z.strictObject({
  web: section(
    {
      allow_hosts: strings(
        "Private or loopback hosts (`host` or `host:port`) `web_fetch`, `web_search` and the Atlassian tools may reach; public hosts need no entry.",
      ).default(() => []),
      timeout_ms: whole(
        "Request timeout of the web tools, in milliseconds (the tools' default: 30 000).",
      ).optional(),
      max_bytes: whole(
        "Largest response body `web_fetch` reads, in bytes (the tool's default: 10 MiB).",
      ).optional(),
    },
    "The web tools (`web_fetch`, `web_search`, `jira_fetch`, `confluence_fetch`).",
  ),
  search: section(
    {
      backend: oneOf(SEARCH_BACKENDS, "The search engine `web_search` asks.").default("duckduckgo"),
      url: text('The SearXNG instance\'s address (`backend = "searxng"`).').optional(),
      api_key_env: text(
        'The environment variable holding the Brave API key (`backend = "brave"`).',
      ).optional(),
      timeout_ms: whole(
        "Search request timeout, in milliseconds (the backend's default: 15 000).",
      ).optional(),
    },
    "`web_search`'s backend.",
  ),
  shell: section(
    {
      env: strings(
        "Environment variables the shell passes from toolgate's own environment to commands (others are not passed).",
      ).default(() => []),
      timeout_ms: whole(
        "A command's default timeout, in milliseconds (the tool's default: 120 000).",
      ).optional(),
      max_output_bytes: whole("Output kept per command, in bytes (the tool's default: 1 MiB).").optional(),
    },
    "The `shell` tool.",
  ),
  files: section(
    {
      protected: strings(
        "Extra paths (gitignore-style, relative to the workspace) no file tool may write; they add to the built-in protected list, which no entry can take a path out of (a `!` entry only makes an exception to these extra paths, and is ignored in an untrusted workspace).",
      ).default(() => []),
      max_file_bytes: whole(
        "Largest file the file tools read whole, in bytes (the workspace's default: 10 MiB).",
      ).optional(),
    },
    "The file tools (`read_file`, `write_file`, `edit_file`, ...).",
  ),
  limits: section(
    {
      max_chars: whole(
        "Characters of a tool's output given to the model; the rest is cut with a note.",
      ).default(DEFAULT_LIMITS.maxChars),
      max_lines: whole("Lines of a tool's output given to the model; the rest is cut with a note.").default(
        DEFAULT_LIMITS.maxLines,
      ),
    },
    "How much of a tool's output reaches the model.",
  ),
  audit: section(
    {
      file: text(
        "A JSONL file every call is recorded in (relative to the workspace); unset: no audit.",
      ).optional(),
    },
    "The audit record.",
  ),
  labels: section(
    {
      guard: flag(
        "The built-in injection guard (docs/injection.md): after untrusted content, a call that sends data out is at least `ask`; with private data too, `deny` unless a rule allows it with `when.context`.",
      ).default(true),
      trusted_servers: strings(
        "MCP servers whose results count as trusted and whose closed-world hints count. Read only from your own config (`--config`), never from a workspace's.",
      ).default(() => []),
    },
    "Information-flow labels (docs/injection.md).",
  ),
  confirm: section(
    {
      timeout_ms: whole(
        "How long an `ask` waits for an answer before it counts as denied, in milliseconds.",
      ).default(DEFAULT_CONFIRM_TIMEOUT_MS),
    },
    "Confirmations (`ask` decisions).",
  ),
  approvals: section(
    {
      route: oneOf(
        APPROVAL_ROUTES,
        "`local`: an ask is answered in the process that asked (its terminal, its MCP client), or refused when nobody is there; `console`: every ask is also published in the user's shared approvals folder, where `toolgate console` (or any process) may answer it, and a process with nobody to ask waits for that answer up to `[confirm] timeout_ms`.",
      ).default("local"),
      webhook: text(
        "An http(s) URL each new ask is POSTed to as JSON, signed with HMAC-SHA256 in `X-Toolgate-Signature` (docs/console.md); never holds up the call.",
      ).optional(),
      webhook_secret: text(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: `${env:VAR}` is the file's syntax, not a template
        "The webhook's signing secret, as `${env:VAR}` (never written in the file; at least 32 characters); `TOOLGATE_WEBHOOK_SECRET` when unset.",
      ).optional(),
    },
    "Where asks are answered (docs/console.md).",
  ),
  jira: section(
    {
      base_url: text(
        "The Jira site (`https://example.atlassian.net`; default: the variable `JIRA_BASE_URL`); `jira_fetch` exists only when a site and a token are set.",
      ).optional(),
      token_env: text(
        "The environment variable holding the Jira API token (default: `JIRA_API_TOKEN`).",
      ).optional(),
      email_env: text(
        "The environment variable holding the account e-mail for Jira Cloud (default: `JIRA_EMAIL`).",
      ).optional(),
      project_keys: strings("Project keys the planner recognises in issue ids (`PROJ-123`).").optional(),
    },
    "The `jira_fetch` tool.",
  ),
  confluence: section(
    {
      base_url: text(
        "The Confluence site (default: the variable `CONFLUENCE_BASE_URL`); `confluence_fetch` exists only when a site and a token are set.",
      ).optional(),
      token_env: text(
        "The environment variable holding the Confluence API token (default: `CONFLUENCE_API_TOKEN`).",
      ).optional(),
      email_env: text(
        "The environment variable holding the account e-mail for Confluence Cloud (default: `CONFLUENCE_EMAIL`).",
      ).optional(),
    },
    "The `confluence_fetch` tool.",
  ),
  llm: section(
    {
      provider: oneOf(
        LLM_PROVIDERS,
        "The model server's protocol: Ollama's, or OpenAI-compatible; or `local`: a GGUF model run in-process (docs/local-model.md).",
      ).default("ollama"),
      base_url: text(
        "The model server's address (default: `http://127.0.0.1:11434` for ollama, `https://api.openai.com/v1` for openai).",
      ).optional(),
      model: text("The model's name (default for ollama: `qwen3`; openai needs one).").optional(),
      api_key_env: text(
        "The environment variable holding the API key (the key itself never goes in the file).",
      ).optional(),
      timeout_ms: whole(
        "How long one model request may take, in milliseconds (the client's default: 120 000).",
      ).optional(),
      max_retries: whole("Retries of a failed model request (the client's default: 2).").optional(),
      context_window: whole(
        "The model's context window in tokens (at least 256): every prompt is kept inside it, less a reserve for the reply. Default: what the server states — Ollama's `/api/show` (capped at 16 384), vLLM's `max_model_len`, llama.cpp's `n_ctx`, the embedded model's loaded context; never more than the server says it holds (docs/chat.md#the-context-window).",
      ).optional(),
      threads: whole(
        "The `local` provider's CPU threads (default: node-llama-cpp's choice, one per core). On a machine busy with other work, fewer threads are often faster.",
      ).optional(),
      temperature: scalar("Sampling temperature, from 0 to 2.").optional(),
      max_tokens: whole("Most tokens one reply may have (at least 1).").optional(),
      think: scalar(
        'Whether the model thinks before answering: true, false, "low", "medium" or "high".',
      ).optional(),
      keep_alive: scalar(
        'How long Ollama keeps the model loaded: a duration ("5m", "30s", "0") or seconds.',
      ).optional(),
      tool_choice: oneOf(TOOL_CHOICES, "Whether the model must, may or may not call tools.").optional(),
      parallel_tool_calls: flag("Whether the model may call several tools in one reply.").optional(),
    },
    "The model `toolgate chat` and `toolgate run` talk to (flags override these).",
  ),
  planner: section(
    {
      default_tool: text("The tool the planner calls when a reply names none it can use.").optional(),
      routing: flag(
        "Whether a routing plan fans out into one call per sub-question (chat and run: off unless set; `toolgate plan`: on unless false).",
      ).optional(),
    },
    "The planner guard.",
  ),
  fleet: section(
    {
      redis: text(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: `${env:VAR}` is the file's syntax, not a template
        "The Redis server of the fleet (`redis://`, `rediss://`, `unix:///path`; `${env:VAR}` reads a variable; `TOOLGATE_REDIS_URL` when unset). When set, every ask is published there and may be answered from any machine (`toolgate approvals`), a call with no local way to ask waits for that answer, and memory and todos live there too. Unreachable: calls that need an approval are refused with the reason.",
      ).optional(),
      cluster: strings(
        "Redis Cluster instead of one server: URLs of some of its nodes (`redis://` or `rediss://`; the rest are discovered). A project's keys share one hash tag, so they live in one slot.",
      ).optional(),
      username_env: text(
        "The environment variable holding the Redis ACL user name (default `TOOLGATE_REDIS_USERNAME`).",
      ).optional(),
      password_env: text(
        "The environment variable holding the Redis password (default `TOOLGATE_REDIS_PASSWORD`). A password is never read from the config file: one written into `redis` or `cluster` is refused.",
      ).optional(),
      tls_ca: text(
        "For a `rediss://` server: the PEM file of the CA its certificate must chain to (relative to the workspace; default: Node's trusted CAs). The certificate and the server's name are always checked: one that does not verify is refused, and nothing is sent.",
      ).optional(),
      tls_cert: text(
        "For a `rediss://` server that asks clients for a certificate (`tls-auth-clients`): this client's certificate, PEM; needs `tls_key`.",
      ).optional(),
      tls_key: text("The private key of `tls_cert` (PEM; keep it readable only by you).").optional(),
      project: text(
        "The key namespace, `toolgate:{PROJECT}:…` (default: the name of the first root).",
      ).optional(),
      worker: text(
        "This process's name in the asks it publishes (default: the host name and the process id).",
      ).optional(),
      audit_max_len: whole(
        "The longest the project's audit stream grows, in records (unset: no limit). Past it the oldest records are exported to `audit_archive` and then trimmed; with no archive, appends past it are refused (records wait in the buffer, then calls are refused) until `toolgate audit export FILE --trim`.",
      ).optional(),
      audit_archive: text(
        "The JSONL file records trimmed from the audit stream are exported to first (relative to the workspace); needs `audit_max_len`.",
      ).optional(),
      audit_buffer: whole(
        "Audit records kept in memory while Redis is away, sent in order once it is back; a call that would need more is refused before it runs.",
      ).default(10_000),
    },
    "Fleet mode (docs/fleet.md): one approval queue and shared memory and todos on Redis for many agents on many machines.",
  ),
  sandbox: section(
    {
      mode: oneOf(
        SANDBOX_MODES,
        "`auto`: `workspace-write` where bubblewrap can make a sandbox, else unsandboxed and said so; `workspace-write`, `read-only` (a mode that cannot be had fails the call), or `off`.",
      ).default("auto"),
      network: flag(
        "Whether every sandboxed command gets the network (through toolgate's egress proxy, as a network grant does).",
      ).default(false),
      allow_hosts: strings(
        "Private or loopback hosts (`host` or `host:port`) a command granted network may reach through the proxy; public hosts need no entry.",
      ).default(() => []),
      writable: strings("Extra writable paths (relative to the workspace, or `~/...`).").default(() => []),
      hidden: strings("Extra paths commands may not read (relative to the workspace, or `~/...`).").default(
        () => [],
      ),
      readable: strings(
        "Extra paths inside the home folder commands may read (`~/...`; the home folder is otherwise empty but for toolchains and caches).",
      ).default(() => []),
      unchecked: strings(
        "Folders the sandbox's survey does not look through for secrets and protected files (large build output; relative to the workspace).",
      ).default(() => []),
    },
    "The shell sandbox (bubblewrap).",
  ),
  // Top-level keys, not sections: `[[hooks]]` is a list (config/hooks-schema.ts).
  ...HOOK_SETTINGS,
});

/** The config file as written (snake_case keys, every key optional): what `parseConfig` returns. */
export type ToolgateConfig = z.input<typeof CONFIG_SCHEMA>;

type Camel<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<Camel<Tail>>}`
  : S;
type CamelKeys<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T as K extends string ? Camel<K> : K]: CamelKeys<T[K]> }
    : T;

/** The settings the library uses: camelCase keys, every section present, defaults applied. */
export type ToolgateSettings = CamelKeys<z.output<typeof CONFIG_SCHEMA>>;
