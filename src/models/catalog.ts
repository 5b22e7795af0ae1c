/**
 * @module models/catalog
 * The models `toolgate models pull` knows by name (`catalog.json`): small GGUF models with native tool
 * calling and licences that allow use and redistribution, with where they come from and how big they are.
 */
import catalog from "./catalog.json" with { type: "json" };
import { DownloadError } from "./download.js";

/** A model toolgate can pull by name. */
export interface CatalogModel {
  name: string;
  about: string;
  /** File name in the models folder. */
  file: string;
  url: string;
  /** Roughly how much is downloaded. */
  approxBytes: number;
  /** Pinned SHA-256, or null: the checksum Hugging Face states for the file is used. */
  sha256: string | null;
  licence: string;
}

export const CATALOG: readonly CatalogModel[] = catalog.models;

/** The model `toolgate models pull` fetches without a name. */
export const DEFAULT_MODEL: string = catalog.default;

/**
 * Where a catalogue model is downloaded from: its Hugging Face URL, or the same path on the mirror named by
 * `HF_ENDPOINT` (the variable Hugging Face's own tools read). A mirror also states the checksum, so choosing
 * one means trusting it.
 * @example modelUrl(entry, { HF_ENDPOINT: "https://hf-mirror.example" })
 */
export function modelUrl(entry: CatalogModel, env: Readonly<Record<string, string | undefined>>): string {
  const mirror = env.HF_ENDPOINT?.trim();
  if (!mirror) return entry.url;
  let base: URL;
  try {
    base = new URL(mirror);
  } catch {
    base = new URL("invalid:");
  }
  if (base.protocol !== "http:" && base.protocol !== "https:")
    throw new DownloadError("http", `HF_ENDPOINT ${JSON.stringify(mirror)} is not an http(s) URL`);
  const url = new URL(entry.url);
  return `${base.href.replace(/\/+$/, "")}${url.pathname}${url.search}`;
}

/** The catalogue entry called `name`, if any. */
export function catalogModel(name: string): CatalogModel | undefined {
  return CATALOG.find((m) => m.name === name);
}
