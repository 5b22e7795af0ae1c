/**
 * @module models/store
 * The models folder (`<user state>/models`): which GGUF files are there, which file a name means (a
 * catalogue name, a file name in the folder, or a path), and removing one.
 */
import { readdir, rm, stat } from "node:fs/promises";
import { basename, isAbsolute, join, resolve } from "node:path";
import { userStateDir } from "../state/index.js";
import { CATALOG, catalogModel } from "./catalog.js";

/** The models folder of a user state folder. */
export function modelsDir(stateDir = userStateDir()): string {
  return join(stateDir, "models");
}

/** A model file in the models folder. */
export interface StoredModel {
  /** The catalogue name when the file is a catalogue model, else the file name. */
  name: string;
  path: string;
  bytes: number;
}

/** The whole model files in the folder (partial downloads are not listed). */
export async function listModels(dir = modelsDir()): Promise<StoredModel[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const out: StoredModel[] = [];
  for (const file of names.filter((n) => n.endsWith(".gguf")).sort()) {
    const path = join(dir, file);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) continue;
    out.push({ name: CATALOG.find((m) => m.file === file)?.name ?? file, path, bytes: info.size });
  }
  return out;
}

/** True when `ref` is written as a path (a separator, or a `.gguf` name) rather than a model name. */
export function isModelPath(ref: string): boolean {
  return ref.includes("/") || ref.includes("\\") || ref.endsWith(".gguf");
}

/**
 * The file `ref` means: a path (relative to `cwd`), a catalogue name, or a file name in the folder.
 * @example modelFile("qwen3-1.7b") // "<state>/models/Qwen3-1.7B-Q8_0.gguf"
 */
export function modelFile(ref: string, dir = modelsDir(), cwd = process.cwd()): string {
  if (isModelPath(ref) && (isAbsolute(ref) || ref.includes("/") || ref.includes("\\")))
    return resolve(cwd, ref);
  const entry = catalogModel(ref);
  return join(dir, entry ? entry.file : basename(ref));
}

/** Removes a model (and any partial download of it); false when there was nothing to remove. */
export async function removeModel(ref: string, dir = modelsDir()): Promise<boolean> {
  const path = modelFile(ref, dir);
  const existed = await stat(path).then(
    () => true,
    () => false,
  );
  const partial = await stat(`${path}.part`).then(
    () => true,
    () => false,
  );
  await rm(path, { force: true });
  await rm(`${path}.part`, { force: true });
  return existed || partial;
}
