#!/usr/bin/env node
// The `skillrun` command. npm links a package's bins when it installs it and skips, silently, a bin
// whose file does not exist yet; dist/ is built after the install, so the bin is this committed
// file, which loads the built CLI.
import { existsSync } from "node:fs";

const cli = new URL("../dist/cli.js", import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write("skillrun: not built yet; run `npm run build` in the repository first\n");
  process.exit(1);
}
await import(cli.href);
