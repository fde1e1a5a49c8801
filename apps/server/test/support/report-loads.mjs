// Loaded with `node --import` into a `skillrun` process by a test: every module the process
// loads is appended (one URL a line) to the file LOAD_REPORT names, from the loader's thread.
import { register } from "node:module";

const hook = `
import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  if (process.env.LOAD_REPORT) appendFileSync(process.env.LOAD_REPORT, url + "\\n");
  return next(url, context);
}
`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
