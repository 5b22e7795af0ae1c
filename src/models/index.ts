/**
 * @module models
 * Local model files for the `local` provider: the catalogue of models toolgate can pull by name, the
 * models folder in the user state folder, and a resumable, checksum-verified downloader.
 */
export { CATALOG, type CatalogModel, catalogModel, DEFAULT_MODEL, modelUrl } from "./catalog.js";
export { DownloadError, type DownloadOptions, type DownloadProgress, downloadFile } from "./download.js";
export { isModelPath, listModels, modelFile, modelsDir, removeModel, type StoredModel } from "./store.js";
