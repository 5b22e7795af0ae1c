/**
 * @module tools/shell/output-buffer
 * A byte-capped output buffer that keeps the head and the tail of a stream and counts what it dropped, so a
 * runaway command cannot exhaust memory and the result still shows how it started and how it ended.
 */

/** Keeps at most `limit` bytes: the first half and the last half of everything written. */
export class HeadTailBuffer {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  /** Bytes written in all. */
  total = 0;

  constructor(limit: number) {
    this.headLimit = Math.ceil(limit / 2);
    this.tailLimit = Math.floor(limit / 2);
  }

  write(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const take = Math.min(rest.length, this.headLimit - this.headBytes);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0 || this.tailLimit === 0) return;
    if (rest.length >= this.tailLimit) {
      // Copy: a subarray would pin the whole (possibly large) chunk in memory.
      this.tail = [Buffer.from(rest.subarray(rest.length - this.tailLimit))];
      this.tailBytes = this.tailLimit;
      return;
    }
    this.tail.push(rest);
    this.tailBytes += rest.length;
    while (this.tailBytes > this.tailLimit) {
      const first = this.tail[0]!;
      const excess = this.tailBytes - this.tailLimit;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
      }
    }
  }

  /** Bytes dropped between head and tail. */
  get omitted(): number {
    return this.total - this.headBytes - this.tailBytes;
  }

  /** The kept text; a marker says how many bytes were left out in the middle. */
  text(): string {
    // Decode contiguous bytes together so a character split across head and tail survives.
    if (this.omitted === 0) return Buffer.concat([...this.head, ...this.tail]).toString("utf8");
    const head = Buffer.concat(this.head).toString("utf8");
    const tail = Buffer.concat(this.tail).toString("utf8");
    return `${head}\n[... ${this.omitted} bytes omitted ...]\n${tail}`;
  }
}
