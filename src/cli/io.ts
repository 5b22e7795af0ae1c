/**
 * @module cli/io
 * What a command may touch: output streams, input, the terminal, the environment. Tests pass their own.
 */
import type { Readable } from "node:stream";
import { isatty } from "node:tty";
import { EXIT } from "./exit-codes.js";

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  stdin: Readable;
  /** Whether stdin and stderr are a terminal (interactive approval is possible). */
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** The real process's streams. A reader that went away (`toolgate tools | head`) ends the output quietly. */
export function processIo(): CliIo {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(process.exitCode ?? EXIT.ok);
      throw error;
    });
  }
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    // Made when first read: creating the stdin stream costs ~1.5 ms that most commands do not need.
    get stdin() {
      return process.stdin;
    },
    isTTY: isatty(0) && Boolean(process.stderr.isTTY),
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Everything on stdin (a piped file, `-` arguments), as UTF-8. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}
