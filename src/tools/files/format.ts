/**
 * @module tools/files/format
 * Small formatting helpers shared by the file tools: sizes, plural nouns, snippets for error messages, and a
 * description of binary files by their magic numbers.
 */

/** `1234` → `1.2 KB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** `plural(2, "file")` → `2 files`. */
export function plural(count: number, noun: string, many = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : many}`;
}

/** A one-line excerpt of `text` for messages: newlines shown as `\n`, cut at `max` characters. */
export function snippet(text: string, max = 60): string {
  const flat = text.replace(/\r/g, "\\r").replace(/\n/g, "\\n");
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

const MAGIC: [number[], string][] = [
  [[0x89, 0x50, 0x4e, 0x47], "PNG image"],
  [[0xff, 0xd8, 0xff], "JPEG image"],
  [[0x47, 0x49, 0x46, 0x38], "GIF image"],
  [[0x25, 0x50, 0x44, 0x46], "PDF document"],
  [[0x50, 0x4b, 0x03, 0x04], "ZIP archive"],
  [[0x1f, 0x8b], "gzip archive"],
  [[0x7f, 0x45, 0x4c, 0x46], "ELF executable"],
  [[0x00, 0x61, 0x73, 0x6d], "WebAssembly module"],
  [[0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], "SQLite database"],
];

/** What a binary file probably is, from its first bytes (`binary data` when unknown). */
export function describeBinary(head: Uint8Array): string {
  for (const [magic, name] of MAGIC) {
    if (magic.every((byte, i) => head[i] === byte)) return name;
  }
  return "binary data";
}
