/** The file a run host starts from: a child process (or worker thread) executing runs (run-host.ts). */
export const RUN_HOST_ENTRY = new URL("./run-host.js", import.meta.url);
