/**
 * @module test-support/tiny-gguf
 * Writes a tiny llama-architecture GGUF model (a few hundred kilobytes) whose replies are scripted: its
 * attention and feed-forward weights are zero, so the next token depends only on the current one, and the
 * output layer maps each token of the script to the next (a bigram chain). The chain starts at the newline
 * that ends the chat template's `<|im_start|>assistant\n` and ends with `<|im_end|>`. Greedy decoding of this
 * model therefore says exactly the script, on every machine — which is what the local-model tests need:
 * real loading, templating, streaming, grammar-constrained function calls and cancellation through
 * node-llama-cpp, with no downloaded weights.
 *
 * The format: magic `GGUF`, version 3, tensor and key/value counts, the key/values, tensor descriptions
 * (name, dimensions innermost first, type, offset), padding to the alignment, then the tensor data.
 */
import { writeFile } from "node:fs/promises";

/** What the model says after the assistant prefix, token by token (each distinct). */
export interface TinyModelOptions {
  /** Tokens the model emits in order; a space is written `▁` (SentencePiece style). */
  script: readonly string[];
  /** The chat template (default: ChatML). */
  chatTemplate?: string;
  /** Context length the model declares (default 32768: a system prompt documenting many tools is long in a byte-level vocabulary). */
  contextLength?: number;
}

const CHATML =
  "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}" +
  "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

// GGUF value types.
const U32 = 4;
const I32 = 5;
const F32 = 6;
const BOOL = 7;
const STRING = 8;
const ARRAY = 9;
// Token types.
const NORMAL = 1;
const UNKNOWN = 2;
const CONTROL = 3;
const BYTE = 6;

const EMBEDDING = 64;
const HEADS = 4;
const FEED_FORWARD = 32;
const ALIGNMENT = 32;

type Value =
  | { type: typeof U32 | typeof I32 | typeof F32; value: number }
  | { type: typeof BOOL; value: boolean }
  | { type: typeof STRING; value: string }
  | { type: typeof ARRAY; of: typeof STRING; value: readonly string[] }
  | { type: typeof ARRAY; of: typeof F32 | typeof I32; value: readonly number[] };

/** Writes the model to `path`. */
export async function writeTinyModel(path: string, options: TinyModelOptions): Promise<void> {
  await writeFile(path, tinyModel(options));
}

/** The model file's bytes. */
export function tinyModel(options: TinyModelOptions): Buffer {
  const tokens = ["<unk>", "<s>", "</s>", "<|im_start|>", "<|im_end|>"];
  const types = [UNKNOWN, CONTROL, CONTROL, CONTROL, CONTROL];
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`);
    types.push(BYTE);
  }
  for (let c = 32; c < 127; c++) {
    tokens.push(c === 32 ? "▁" : String.fromCharCode(c));
    types.push(NORMAL);
  }
  const script = options.script.map((text) => {
    let id = tokens.indexOf(text);
    if (id < 0) {
      tokens.push(text);
      types.push(NORMAL);
      id = tokens.length - 1;
    }
    return id;
  });
  if (script.length === 0 || new Set(script).size !== script.length)
    throw new Error("the script needs distinct tokens (each token has one successor)");
  const end = tokens.indexOf("<|im_end|>");
  const next = new Map<number, number>([[tokens.indexOf("<0x0A>"), script[0] as number]]);
  for (const [i, id] of script.entries()) next.set(id, script[i + 1] ?? end);

  // Seeded unit vectors: nearly orthogonal in 64 dimensions, so each token's successor wins by a wide margin.
  let seed = 12345;
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32 - 0.5;
  };
  const embeddings = tokens.map(() => {
    const v = Float32Array.from({ length: EMBEDDING }, random);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
  const vocab = tokens.length;
  const tensors: { name: string; dims: number[]; data: Float32Array }[] = [];
  const tensor = (name: string, dims: number[], fill?: (data: Float32Array) => void) => {
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
    fill?.(data);
    tensors.push({ name, dims, data });
  };
  tensor("token_embd.weight", [EMBEDDING, vocab], (d) => {
    for (const [i, e] of embeddings.entries()) d.set(e, i * EMBEDDING);
  });
  tensor("output_norm.weight", [EMBEDDING], (d) => d.fill(1));
  tensor("output.weight", [EMBEDDING, vocab], (d) => {
    for (const [from, to] of next) {
      const e = embeddings[from] as Float32Array;
      for (let k = 0; k < EMBEDDING; k++)
        d[to * EMBEDDING + k] = (d[to * EMBEDDING + k] ?? 0) + 2 * (e[k] ?? 0);
    }
  });
  tensor("blk.0.attn_norm.weight", [EMBEDDING], (d) => d.fill(1));
  for (const name of ["attn_q", "attn_k", "attn_v", "attn_output"])
    tensor(`blk.0.${name}.weight`, [EMBEDDING, EMBEDDING]);
  tensor("blk.0.ffn_norm.weight", [EMBEDDING], (d) => d.fill(1));
  tensor("blk.0.ffn_gate.weight", [EMBEDDING, FEED_FORWARD]);
  tensor("blk.0.ffn_up.weight", [EMBEDDING, FEED_FORWARD]);
  tensor("blk.0.ffn_down.weight", [FEED_FORWARD, EMBEDDING]);

  const metadata: [string, Value][] = [
    ["general.architecture", { type: STRING, value: "llama" }],
    ["general.name", { type: STRING, value: "toolgate-tiny" }],
    ["general.alignment", { type: U32, value: ALIGNMENT }],
    ["llama.context_length", { type: U32, value: options.contextLength ?? 32768 }],
    ["llama.embedding_length", { type: U32, value: EMBEDDING }],
    ["llama.block_count", { type: U32, value: 1 }],
    ["llama.feed_forward_length", { type: U32, value: FEED_FORWARD }],
    ["llama.rope.dimension_count", { type: U32, value: EMBEDDING / HEADS }],
    ["llama.attention.head_count", { type: U32, value: HEADS }],
    ["llama.attention.head_count_kv", { type: U32, value: HEADS }],
    ["llama.attention.layer_norm_rms_epsilon", { type: F32, value: 1e-5 }],
    ["llama.vocab_size", { type: U32, value: vocab }],
    ["tokenizer.ggml.model", { type: STRING, value: "llama" }],
    ["tokenizer.ggml.tokens", { type: ARRAY, of: STRING, value: tokens }],
    ["tokenizer.ggml.scores", { type: ARRAY, of: F32, value: tokens.map(() => 0) }],
    ["tokenizer.ggml.token_type", { type: ARRAY, of: I32, value: types }],
    ["tokenizer.ggml.bos_token_id", { type: U32, value: 1 }],
    ["tokenizer.ggml.eos_token_id", { type: U32, value: end }],
    ["tokenizer.ggml.unknown_token_id", { type: U32, value: 0 }],
    ["tokenizer.ggml.add_bos_token", { type: BOOL, value: true }],
    ["tokenizer.ggml.add_space_prefix", { type: BOOL, value: false }],
    ["tokenizer.chat_template", { type: STRING, value: options.chatTemplate ?? CHATML }],
  ];

  const out = new Writer();
  out.bytes(Buffer.from("GGUF"));
  out.u32(3);
  out.u64(tensors.length);
  out.u64(metadata.length);
  for (const [key, value] of metadata) {
    out.string(key);
    out.u32(value.type);
    out.value(value);
  }
  let offset = 0;
  for (const t of tensors) {
    out.string(t.name);
    out.u32(t.dims.length);
    for (const d of t.dims) out.u64(d);
    out.u32(0); // F32
    out.u64(offset);
    offset += aligned(t.data.byteLength);
  }
  out.bytes(Buffer.alloc(aligned(out.length) - out.length));
  for (const t of tensors) {
    const bytes = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    out.bytes(bytes);
    out.bytes(Buffer.alloc(aligned(bytes.length) - bytes.length));
  }
  return out.buffer();
}

function aligned(n: number): number {
  return Math.ceil(n / ALIGNMENT) * ALIGNMENT;
}

class Writer {
  private readonly parts: Buffer[] = [];
  length = 0;

  bytes(b: Buffer): void {
    this.parts.push(b);
    this.length += b.length;
  }
  u32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    this.bytes(b);
  }
  u64(n: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    this.bytes(b);
  }
  string(s: string): void {
    const b = Buffer.from(s, "utf8");
    this.u64(b.length);
    this.bytes(b);
  }
  value(v: Value): void {
    const b = Buffer.alloc(4);
    switch (v.type) {
      case U32:
        this.u32(v.value);
        return;
      case I32:
        b.writeInt32LE(v.value);
        this.bytes(b);
        return;
      case F32:
        b.writeFloatLE(v.value);
        this.bytes(b);
        return;
      case BOOL:
        this.bytes(Buffer.from([v.value ? 1 : 0]));
        return;
      case STRING:
        this.string(v.value);
        return;
      case ARRAY:
        this.u32(v.of);
        this.u64(v.value.length);
        for (const item of v.value)
          this.value(
            typeof item === "string"
              ? { type: STRING, value: item }
              : { type: v.of as typeof F32 | typeof I32, value: item },
          );
    }
  }
  buffer(): Buffer {
    return Buffer.concat(this.parts);
  }
}
