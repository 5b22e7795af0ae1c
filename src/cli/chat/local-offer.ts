/**
 * @module cli/chat/local-offer
 * When no provider is configured and no model server answers, a person at `chat` (or `run --yes`) can use
 * the local provider instead of stopping: a default model already pulled is used, else pulling it (and the
 * runtime, if missing) is offered. Nothing is downloaded without a yes; a download that fails ends the command
 * (exit 2) with what else works — a mirror, a file URL, a model server — rather than a session that cannot run.
 */
import { existsSync } from "node:fs";
import type { LlmSettings } from "../../llm/index.js";
import { catalogModel, DEFAULT_MODEL, modelFile, modelsDir } from "../../models/index.js";
import { userStateDir } from "../../state/index.js";
import { gb, pullModel, runtimeInstalled } from "../commands/models.js";
import type { CliContext } from "../context.js";
import { UsageError } from "../exit-codes.js";

/** Settings for the local default model, or undefined when the person said no or the pull failed. */
export async function offerLocalModel(
  ctx: CliContext,
  ask: (question: string) => Promise<boolean>,
  configured: LlmSettings,
): Promise<LlmSettings | undefined> {
  const stateDir = userStateDir({ env: ctx.io.env });
  const path = modelFile(DEFAULT_MODEL, modelsDir(stateDir));
  // The session's own window, threads and sampling options carry over; the server address does not.
  const { contextWindow, threads, options } = configured;
  const local: LlmSettings = {
    provider: "local",
    model: path,
    baseUrl: "",
    ...(contextWindow ? { contextWindow } : {}),
    ...(threads ? { threads } : {}),
    ...(options ? { options } : {}),
  };
  if (existsSync(path) && (await runtimeInstalled(stateDir))) {
    ctx.io.stderr(`toolgate: no model server answers: using the local model ${DEFAULT_MODEL} (${path})\n`);
    return local;
  }
  const entry = catalogModel(DEFAULT_MODEL);
  const runtime = (await runtimeInstalled(stateDir)) ? "" : " and its runtime (node-llama-cpp, ~700 MB)";
  const size = entry && !existsSync(path) ? ` (~${gb(entry.approxBytes)}, ${entry.licence})` : "";
  const yes = await ask(
    `No model server answers. Download the local model ${DEFAULT_MODEL}${size}${runtime} into ${stateDir} and use it? [y/N] `,
  );
  if (!yes) return undefined;
  const code = await pullModel(ctx, stateDir, DEFAULT_MODEL, { yes: true });
  if (code === 0 && (await runtimeInstalled(stateDir))) return local;
  // The person chose the local model and it is not there: a session against the server that did not answer
  // would only fail later. Say what else works, and stop (exit 2).
  throw new UsageError(localModelFailure(code === 0 ? "its runtime" : "the model"));
}

/** What to do when the local model could not be downloaded (the reason was printed above). */
export function localModelFailure(what: string): string {
  return [
    `the local model could not be used: ${what} could not be downloaded (see above). Instead:`,
    "  - a Hugging Face mirror you can reach: HF_ENDPOINT=https://MIRROR toolgate chat",
    "  - a .gguf file from anywhere you can reach: toolgate models pull URL --sha256 HEX, then toolgate chat --provider local --model NAME (or --model ./file.gguf for a file you already have)",
    "  - a model server you have: [llm] provider, base_url and model in .toolgate/config.toml (or --provider, --base-url, --model); docs/chat.md lists them",
  ].join("\n");
}

/** The local model, offered where no person can be asked: what to run to use it. */
export const LOCAL_MODEL_OPTION =
  "  or, with no model server at all, run a small model in-process: toolgate models pull, then toolgate chat --provider local (chat --yes and run --yes pull it without asking) — docs/local-model.md";
