/**
 * @module cli/chat/local-offer
 * When no provider is configured and no model server answers, a person at `chat` (or `run --yes`) can use
 * the local provider instead of stopping: a default model already pulled is used, else pulling it (and the
 * runtime, if missing) is offered. Nothing is downloaded without a yes.
 */
import { existsSync } from "node:fs";
import type { LlmSettings } from "../../llm/index.js";
import { catalogModel, DEFAULT_MODEL, modelFile, modelsDir } from "../../models/index.js";
import { userStateDir } from "../../state/index.js";
import { gb, pullModel, runtimeInstalled } from "../commands/models.js";
import type { CliContext } from "../context.js";

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
  return code === 0 && (await runtimeInstalled(stateDir)) ? local : undefined;
}
