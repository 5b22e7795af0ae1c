/**
 * @module tools/files/wasm
 * The WebAssembly API the file tools' small modules (`newlines.wat`, `prefix-lines.wat`) use, and their
 * compilation: once, on first use, or never where this runtime cannot (their SIMD needs SSE4.1 on x86).
 */

/** A WebAssembly memory (the project's `lib` has no DOM, which declares these types). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports?: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}

export const Wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** How far past its range a scan 16 bytes per step may read (the bytes there are never counted). */
export const SCAN_SLACK = 16;

/** The size of a WebAssembly memory page. */
export const WASM_PAGE = 65_536;

/** Whether the modules run where they can; false only while a benchmark times the plain TypeScript path. */
let modulesOn = true;

/**
 * Turns the modules off (every getter gives null, so each caller takes the path it takes where they cannot
 * compile) or back on. For the benchmark that weighs them against that path, call by call, in one process.
 */
export function setWasmModules(on: boolean): void {
  modulesOn = on;
}

/** A getter of the module assembled as `base64`: compiled on the first call, null if it cannot be. */
export function lazyModule(base64: string): () => object | null {
  let compiled: object | null | undefined;
  return () => {
    if (!modulesOn) return null;
    if (compiled === undefined) {
      try {
        compiled = new Wasm.Module(Buffer.from(base64, "base64"));
      } catch {
        compiled = null;
      }
    }
    return compiled;
  };
}
