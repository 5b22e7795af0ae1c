/**
 * @module mcp-client/stdio-transport
 * The client side of MCP's stdio transport: a child process speaking newline-delimited JSON-RPC. Like the
 * SDK's, but it reads large messages in linear time (a 20 MB result is one concatenation, not hundreds),
 * caps a message's size, and hands stderr to the caller instead of the user's terminal. The server starts as
 * the leader of its own process group (utils/process-group, as shell commands and hooks do), so when it is
 * closed, or exits or crashes on its own, whatever it started is stopped with it.
 */
import type { ChildProcess } from "node:child_process";
import { statSync } from "node:fs";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { liveGroupMembers, spawnGroup, stopGroup } from "../utils/index.js";
import { clientSdk } from "./sdk.js";

export interface ChildStdioParams {
  command: string;
  args: string[];
  /** Added to the SDK's minimal inherited environment (HOME, PATH, SHELL, TERM, USER, LOGNAME). */
  env: Record<string, string>;
  cwd?: string;
  /** Largest message accepted (bytes); a larger one is an error and closes the connection. */
  maxMessageBytes: number;
  /** Receives the child's stderr. */
  onStderr?: (chunk: Buffer) => void;
  /** Called once the child has exited and its output is read, before `onclose`. */
  onExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
}

const GRACE_MS = 1000;

/** A Transport over a child's stdin/stdout. */
export class ChildStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private sdk: Awaited<ReturnType<typeof clientSdk>> | undefined;

  constructor(private readonly params: ChildStdioParams) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    if (this.child || this.sdk) throw new Error("the transport is already started");
    const { command, args, env, cwd } = this.params;
    // Node reports a missing working directory as "spawn COMMAND ENOENT", blaming the command; say what it is.
    if (cwd && !isDirectory(cwd)) {
      throw new Error(`the working directory ${cwd} does not exist (cwd in .mcp.json)`);
    }
    const sdk = await clientSdk();
    this.sdk = sdk;
    return new Promise((resolve, reject) => {
      const child = spawnGroup(command, args, {
        env: { ...sdk.getDefaultEnvironment(), ...env },
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        windowsHide: true,
        ...(cwd ? { cwd } : {}),
      });
      this.child = child;
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => resolve());
      // The server is gone (closed, crashed or done): what it started goes too. Its output pipes close (and
      // `close` fires) only once no grandchild holds them.
      child.on("exit", () => {
        const pid = child.pid;
        if (pid !== undefined && liveGroupMembers(pid).length > 0) void stopGroup(pid, GRACE_MS);
      });
      child.on("close", (code, signal) => {
        if (this.child === child) this.child = undefined;
        this.params.onExit?.(code, signal);
        this.onclose?.();
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => this.read(chunk));
      child.stderr?.on("data", (chunk: Buffer) => this.params.onStderr?.(chunk));
    });
  }

  private read(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
      this.pending = [];
      this.pendingBytes = 0;
      start = nl + 1;
      this.deliver(line);
    }
    if (start < chunk.length) {
      this.pending.push(chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
      if (this.pendingBytes > this.params.maxMessageBytes) {
        this.pending = [];
        this.pendingBytes = 0;
        this.onerror?.(new Error(`a message from the server exceeded ${this.params.maxMessageBytes} bytes`));
        void this.close();
      }
    }
  }

  private deliver(line: Buffer): void {
    const text = line.toString("utf8").replace(/\r$/, "");
    if (text.trim() === "") return;
    try {
      // The SDK is loaded: messages come only after start().
      this.onmessage?.(this.sdk!.types.JSONRPCMessageSchema.parse(JSON.parse(text)));
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || stdin.destroyed) {
        reject(new Error("Not connected"));
        return;
      }
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /**
   * Closes stdin, waits a grace period for the server to exit, then stops its whole process group (SIGTERM,
   * then SIGKILL): no child of the server outlives it.
   */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once("exit", () => resolve());
    });
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, GRACE_MS).unref())]);
    if (child.pid !== undefined) await stopGroup(child.pid, GRACE_MS);
    await exited;
    this.pending = [];
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
