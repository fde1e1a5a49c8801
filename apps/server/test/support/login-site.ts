import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback site with a sign-in, for browser profiles: `/account` shows who is signed in, or
 * sends a visitor without a session to `/login`, whose form (`#user`, `#password`, `#sign-in`)
 * posts back and sets an HttpOnly session cookie; the account page also keeps a note in
 * localStorage, and `/big` keeps 4,000 characters there. It counts sign-ins, and keeps the session values it handed out so a test can
 * look for them where they must never be.
 */
export interface LoginSite {
  base: string;
  signIns(): number;
  sessionValues(): string[];
  close(): Promise<void>;
}

export const LOGIN_PASSWORD = "correct horse";

/**
 * A skill that signs in to the site only when its account page sends it to the form, saving
 * the profile `acme-<user>`; `wait` (e.g. `1s`) keeps it in its browser before it ends, so that
 * two runs side by side would overlap, were they allowed to.
 */
export function signInSkill(id: string, wait?: string): string {
  return `
id: ${id}
name: Acme account
inputs:
  - { json_key: site, data_type: string }
  - { json_key: user, data_type: string }
profile: { name: "acme-{{ inputs.user }}", save: on_success }
steps:
  - goto: "{{ inputs.site }}/account"
  - id: form
    exists: { selector: "#login" }
  - if: "{{ steps.form }}"
    fill: { selector: "#user", value: "{{ inputs.user }}" }
  - if: "{{ steps.form }}"
    fill: { selector: "#password", value: "${LOGIN_PASSWORD}" }
  - if: "{{ steps.form }}"
    click: { selector: "#sign-in" }
  - id: who
    extract: { selector: "#who" }${wait === undefined ? "" : `\n  - wait: ${wait}`}
  - set: { signed_in_by_form: "{{ steps.form }}", who: "{{ steps.who }}" }
`;
}

const LOGIN_PAGE = `<!doctype html><title>Sign in</title>
<form id="login" method="post" action="/login">
<input id="user" name="user"><input id="password" name="password" type="password">
<button id="sign-in">Sign in</button></form>`;

function accountPage(user: string): string {
  return `<!doctype html><title>Account</title><p id="who">Signed in as ${user}</p>
<script>localStorage.setItem("last_seen", "account");</script>`;
}

export async function startLoginSite(): Promise<LoginSite> {
  const sessions = new Map<string, string>();
  let signIns = 0;
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    const session = /(?:^|;\s*)session=([0-9a-f]+)/.exec(request.headers.cookie ?? "")?.[1];
    const user = session === undefined ? undefined : sessions.get(session);
    if (path === "/account") {
      if (user === undefined) response.writeHead(302, { location: "/login" }).end();
      else response.writeHead(200, { "content-type": "text/html" }).end(accountPage(user));
    } else if (path === "/login" && request.method === "POST") {
      void formOf(request).then((form) => {
        if (form.get("password") !== LOGIN_PASSWORD) {
          response.writeHead(401, { "content-type": "text/html" }).end(LOGIN_PAGE);
          return;
        }
        signIns += 1;
        const id = randomBytes(16).toString("hex");
        sessions.set(id, form.get("user") ?? "");
        const cookie = `session=${id}; Path=/; HttpOnly; Max-Age=3600; SameSite=Lax`;
        response.writeHead(303, { location: "/account", "set-cookie": cookie }).end();
      });
    } else if (path === "/big") {
      const page = `<!doctype html><title>Big</title><script>localStorage.setItem("big", "${"x".repeat(4000)}");</script>`;
      response.writeHead(200, { "content-type": "text/html" }).end(page);
    } else if (path === "/login") {
      response.writeHead(200, { "content-type": "text/html" }).end(LOGIN_PAGE);
    } else {
      response.writeHead(404, { "content-type": "text/plain" }).end("none");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    signIns: () => signIns,
    sessionValues: () => [...sessions.keys()],
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function formOf(request: IncomingMessage): Promise<URLSearchParams> {
  let body = "";
  for await (const chunk of request) body += chunk;
  return new URLSearchParams(body);
}
