/**
 * @module llm/local-runtime
 * Finds and loads node-llama-cpp, the runtime of the `local` provider. It is an optional peer dependency
 * (~700 MB with its CPU, CUDA and Vulkan backends), so it is loaded only when a local model is used: from the
 * normal module resolution first (a project or global install), then from the copy `toolgate models pull`
 * installs into the user state folder with the user's consent. One runtime (GPU when it finds one, CPU
 * otherwise; never compiled from source) and one loaded copy of each model file per process.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { userStateDir } from "../state/index.js";
import { ModelError } from "./errors.js";

/** The node-llama-cpp module (typed loosely here so that the published types never name it). */
// biome-ignore lint/suspicious/noExplicitAny: the optional peer's API is used inside this folder only
export type LlamaModule = any;

/** The npm package and the version line toolgate is tested with. */
export const RUNTIME_PACKAGE = "node-llama-cpp";
export const RUNTIME_VERSION = "^3.22.1";

/** Where `toolgate models pull` installs the runtime when the user agrees: `<user state>/runtime`. */
export function runtimeDir(stateDir = userStateDir()): string {
  return join(stateDir, "runtime");
}

let loading: Promise<LlamaModule> | undefined;

/** The runtime module, or a `runtime_missing` ModelError saying how to get it. */
export function loadRuntime(stateDir?: string): Promise<LlamaModule> {
  loading ??= importRuntime(stateDir).catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

async function importRuntime(stateDir?: string): Promise<LlamaModule> {
  try {
    return await import(RUNTIME_PACKAGE);
  } catch (error) {
    if (!isNotFound(error)) throw runtimeFailed(error);
  }
  const dir = runtimeDir(stateDir);
  const manifest = join(dir, "package.json");
  if (existsSync(manifest)) {
    try {
      const entry = createRequire(manifest).resolve(RUNTIME_PACKAGE);
      return await import(pathToFileURL(entry).href);
    } catch (error) {
      if (!isNotFound(error)) throw runtimeFailed(error);
    }
  }
  throw new ModelError(
    "runtime_missing",
    `the local model runtime (${RUNTIME_PACKAGE}) is not installed — run \`toolgate models pull\` (it offers to install it, ~700 MB) or \`npm install ${RUNTIME_PACKAGE}\``,
  );
}

function isNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
}

function runtimeFailed(error: unknown): ModelError {
  const reason = error instanceof Error ? error.message : String(error);
  return new ModelError(
    "runtime_missing",
    `the local model runtime (${RUNTIME_PACKAGE}) failed to load: ${reason}`,
  );
}

let llama: Promise<LlamaModule> | undefined;

/** The one llama.cpp binding of this process: GPU when one is found, CPU otherwise. */
export function getLlama(stateDir?: string): Promise<LlamaModule> {
  llama ??= loadRuntime(stateDir)
    .then((runtime) =>
      runtime.getLlama({ gpu: "auto", build: "never", logLevel: "error", progressLogs: false }),
    )
    .catch((error: unknown) => {
      llama = undefined;
      throw error instanceof ModelError ? error : runtimeFailed(error);
    });
  return llama;
}

/** Which compute backend the runtime picked (`cuda`, `vulkan`, `metal`, or `cpu`), for `doctor`. */
export async function runtimeBackend(stateDir?: string): Promise<string> {
  const instance = await getLlama(stateDir);
  return instance.gpu === false ? "cpu" : String(instance.gpu);
}
