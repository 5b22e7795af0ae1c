/**
 * @module cli/trust-prompt
 * What a workspace's own files would do once trusted — the allow rules and default of its policy, the
 * security settings of its config, the programs its `.mcp.json` starts, its agent definitions — and the
 * one question `toolgate chat` asks on a terminal before the session starts in a folder not yet trusted.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { join, relative } from "node:path";
import { parse } from "smol-toml";
import { type ToolgateConfig, withoutSecurityKeys } from "../config/index.js";
import { loadMcpConfig } from "../mcp/index.js";
import { isTrusted, trustFolder, trustStorePath } from "../workspace/index.js";
import type { CliContext } from "./context.js";

/** Plain lines describing what trusting `root` would turn on; empty when it has none of the files. */
export async function describeWorkspaceFiles(root: string): Promise<string[]> {
  const lines: string[] = [];
  const policyFile = join(root, ".toolgate", "policy.toml");
  if (existsSync(policyFile)) {
    try {
      const raw = parse(readFileSync(policyFile, "utf8")) as { default?: unknown; rules?: unknown };
      const rules = Array.isArray(raw.rules) ? (raw.rules as Array<Record<string, unknown>>) : [];
      const allows = rules.filter((r) => r["decision"] === "allow");
      const tools = [...new Set(allows.flatMap((r) => [r["tool"]].flat().map(String)))];
      lines.push(
        `.toolgate/policy.toml: default ${JSON.stringify(raw.default ?? "(built-in)")}, ${allows.length} allow rule(s)${tools.length ? ` for ${tools.join(", ")}` : ""}`,
      );
    } catch (error) {
      lines.push(`.toolgate/policy.toml: does not parse (${(error as Error).message.split("\n")[0]})`);
    }
  }
  const configFile = join(root, ".toolgate", "config.toml");
  if (existsSync(configFile)) {
    try {
      // Parsed, not validated: the question describes the file even when it would not load.
      const raw = parse(readFileSync(configFile, "utf8")) as Record<string, Record<string, unknown>>;
      // The keys trust would turn on are the ones an untrusted load drops (one rule: config/trust.ts).
      const set = withoutSecurityKeys(raw as ToolgateConfig).ignored.map((key) => {
        const dot = key.indexOf(".");
        return `${key} = ${JSON.stringify(raw[key.slice(0, dot)]?.[key.slice(dot + 1)])}`;
      });
      if (set.length > 0) lines.push(`.toolgate/config.toml sets: ${set.join("; ")}`);
    } catch (error) {
      lines.push(`.toolgate/config.toml: does not parse (${(error as Error).message.split("\n")[0]})`);
    }
  }
  try {
    const mcp = await loadMcpConfig(root);
    for (const [name, server] of Object.entries(mcp.servers)) {
      const what =
        server.type === "stdio"
          ? `runs ${[server.command, ...server.args].map((a) => JSON.stringify(a)).join(" ")}`
          : `connects to ${server.url}`;
      lines.push(`${relative(root, mcp.origins[name] ?? join(root, ".mcp.json"))} server ${name}: ${what}`);
    }
  } catch (error) {
    lines.push(`MCP configuration: ${(error as Error).message}`);
  }
  const agentsDir = join(root, ".toolgate", "agents");
  if (existsSync(agentsDir)) {
    const agents = readdirSync(agentsDir).filter((f) => f.endsWith(".md"));
    if (agents.length > 0) lines.push(`.toolgate/agents: ${agents.map((f) => f.slice(0, -3)).join(", ")}`);
  }
  return lines;
}

/**
 * On a terminal, in a folder not yet trusted that holds such files: shows them and asks once. Yes → the
 * folder is trusted (as `toolgate trust` would). Returns whether the folder is trusted afterwards.
 */
export async function askWorkspaceTrust(
  ctx: CliContext,
  question: (text: string) => Promise<string>,
): Promise<boolean> {
  const store = trustStorePath({ env: ctx.io.env });
  const root = await realpath(ctx.root).catch(() => ctx.root);
  if (isTrusted(root, store)) return true;
  if (!ctx.io.isTTY) return false;
  const lines = await describeWorkspaceFiles(root);
  if (lines.length === 0) return false;
  ctx.io.stdout(
    `This folder's own toolgate files are not trusted yet (${root}). Trusted, they would:\n` +
      lines.map((l) => `  - ${l}\n`).join("") +
      "Until then its policy can only make things stricter, and its MCP servers are not started.\n",
  );
  const answer = (await question("Trust this folder? [y/N] ")).trim().toLowerCase();
  if (answer !== "y" && answer !== "yes") return false;
  await trustFolder(root, store);
  ctx.io.stdout(`trusted ${root} (recorded in ${store})\n`);
  return true;
}
