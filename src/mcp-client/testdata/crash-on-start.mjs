// A server that fails at start-up: a few lines on stderr, then exit code 3 (tests the crash report).
process.stderr.write("starting crash-on-start\n");
process.stderr.write("error: the database file is missing\n");
process.stderr.write("giving up");
process.exit(3);
