// What other workspaces' tests import as `@skillrun/server/test-support`: a real server over
// real HTTP, and the shape of the skills that seed it, without reaching into the server's sources.
export type { SkillRecord } from "../db/repositories/skills.js";
export { launchTestBrowser } from "./test-browser.js";
export { startTestServer, type TestServer, type TestServerOptions } from "./test-server.js";
