#!/usr/bin/env node
/**
 * @module cli/main
 * The `toolgate` binary: runs the command line and exits with its code.
 */
import { processIo } from "./io.js";
import { runCli } from "./run.js";

const code = await runCli(process.argv.slice(2), processIo());
process.exitCode = code;
