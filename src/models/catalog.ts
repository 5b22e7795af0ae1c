/**
 * @module models/catalog
 * The models `toolgate models pull` knows by name (`catalog.json`): small GGUF models with native tool
 * calling and licences that allow use and redistribution, with where they come from and how big they are.
 */
import catalog from "./catalog.json" with { type: "json" };

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

/** The catalogue entry called `name`, if any. */
export function catalogModel(name: string): CatalogModel | undefined {
  return CATALOG.find((m) => m.name === name);
}
