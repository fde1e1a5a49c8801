import type { StorageState } from "@skillrun/engine";
import { expect } from "vitest";
import type { RowHelpers } from "./contract-keys.js";
import type { Ctx, Table } from "./contract-table.js";
import { call, oversizedRunBody, TOO_LONG_ID } from "./http.js";

/**
 * The contract table's rows for browser profiles (listProfiles, getProfile, putProfile,
 * deleteProfile): every status each declares. contract-table.ts adds them to its table.
 */

/** A cookie value no answer may ever show. */
export const COOKIE_VALUE = "contract-cookie-value-9f2c";
const STORAGE_VALUE = "contract-local-value-71ad";

/** A storage state as Playwright gives it, with a session cookie and one that expires. */
export function storageState(value = COOKIE_VALUE): StorageState {
  return {
    cookies: [
      {
        name: "session",
        value,
        domain: ".example.com",
        path: "/",
        expires: 1_900_000_000,
        httpOnly: true,
        secure: true,
        sameSite: "Lax",
      },
      {
        name: "prefs",
        value,
        domain: "example.com",
        path: "/",
        expires: -1,
        httpOnly: false,
        secure: false,
        sameSite: "None",
      },
    ],
    origins: [
      { origin: "https://example.com", localStorage: [{ name: "token", value: STORAGE_VALUE }] },
    ],
  };
}

function expectNoValues(text: string): void {
  expect(text).not.toContain(COOKIE_VALUE);
  expect(text).not.toContain(STORAGE_VALUE);
}

/** A profile of `owner`'s stored through the repository, as an import would. */
async function newProfile(ctx: Ctx, owner: string, name: string): Promise<void> {
  await ctx.main.repos.profiles.put(owner, name, storageState());
}

let limitedOwners = 0;

export function profileRows({ unauthorized, failing }: RowHelpers): Table {
  return {
    listProfiles: {
      "200": [
        {
          name: "the caller's profiles, described without values",
          send: async (ctx) => {
            await newProfile(ctx, "alice", "listed");
            await newProfile(ctx, "bob", "bobs_listed");
            return call(ctx.main.origin, "GET", "/v1/profile/list", { key: ctx.alice });
          },
          check: (reply) => {
            const names = (reply.body as { name: string }[]).map((p) => p.name);
            expect(names).toContain("listed");
            expect(names).not.toContain("bobs_listed");
            expectNoValues(reply.text);
          },
        },
      ],
      "401": unauthorized((ctx, key) => call(ctx.main.origin, "GET", "/v1/profile/list", { key })),
      "500": failing((ctx) =>
        call(ctx.broken.origin, "GET", "/v1/profile/list", { key: ctx.brokenKey }),
      ),
    },

    getProfile: {
      "200": [
        {
          name: "a profile of the caller's: per-domain counts and earliest expiry, no value",
          send: async (ctx) => {
            await newProfile(ctx, "alice", "described");
            return call(ctx.main.origin, "GET", "/v1/profile/described", { key: ctx.alice });
          },
          check: (reply) => {
            expect(reply.body).toMatchObject({
              name: "described",
              version: 1,
              cookies: 2,
              saved_by_run: null,
              domains: [
                { domain: "example.com", cookies: 2, earliest_expiry: "2030-03-17T17:46:40.000Z" },
              ],
              origins: [{ origin: "https://example.com", items: 1 }],
            });
            expectNoValues(reply.text);
          },
        },
      ],
      "401": unauthorized((ctx, key) =>
        call(ctx.main.origin, "GET", "/v1/profile/described", { key }),
      ),
      "404": [
        {
          name: "an unknown profile",
          send: (ctx) =>
            call(ctx.main.origin, "GET", "/v1/profile/never_saved", { key: ctx.alice }),
          check: (reply) => expect(reply.body).toEqual({ detail: "Profile not found" }),
        },
        {
          name: "another owner's profile",
          send: async (ctx) => {
            await newProfile(ctx, "bob", "bobs_profile");
            return call(ctx.main.origin, "GET", "/v1/profile/bobs_profile", { key: ctx.alice });
          },
        },
        {
          name: "a name whose percent-encoding does not decode",
          send: (ctx) => call(ctx.main.origin, "GET", "/v1/profile/%zz", { key: ctx.alice }),
        },
      ],
      "422": [
        {
          name: "a name of odd characters",
          send: (ctx) => call(ctx.main.origin, "GET", "/v1/profile/a%20b", { key: ctx.alice }),
          check: (reply) =>
            expect(reply.body).toMatchObject({ detail: [{ loc: ["path", "name"] }] }),
        },
        {
          name: "a name over 128 characters",
          send: (ctx) =>
            call(ctx.main.origin, "GET", `/v1/profile/${TOO_LONG_ID}`, { key: ctx.alice }),
        },
      ],
      "500": failing((ctx) =>
        call(ctx.broken.origin, "GET", "/v1/profile/described", { key: ctx.brokenKey }),
      ),
    },

    putProfile: {
      "200": [
        {
          name: "a new profile of the caller's, described without its values",
          send: (ctx) =>
            call(ctx.main.origin, "PUT", "/v1/profile/acme-ann@example.com", {
              key: ctx.alice,
              json: storageState(),
            }),
          check: (reply) => {
            expect(reply.body).toMatchObject({ name: "acme-ann@example.com", cookies: 2 });
            expectNoValues(reply.text);
          },
        },
        {
          name: "a profile replaced, as its next version; fields beyond a browser's dropped",
          send: async (ctx) => {
            await newProfile(ctx, "alice", "replaced");
            const state = storageState();
            const extra = { ...state, extra: true, cookies: [{ ...state.cookies[0], x: 1 }] };
            return call(ctx.main.origin, "PUT", "/v1/profile/replaced", {
              key: ctx.alice,
              json: extra,
            });
          },
          check: (reply) => expect(reply.body).toMatchObject({ version: 2, cookies: 1 }),
        },
      ],
      "401": unauthorized((ctx, key) =>
        call(ctx.main.origin, "PUT", "/v1/profile/acme", { key, json: storageState() }),
      ),
      "404": [
        {
          name: "the address of the list",
          send: (ctx) =>
            call(ctx.main.origin, "PUT", "/v1/profile/list", {
              key: ctx.alice,
              json: storageState(),
            }),
        },
        {
          name: "a name whose percent-encoding does not decode",
          send: (ctx) =>
            call(ctx.main.origin, "PUT", "/v1/profile/%zz", {
              key: ctx.alice,
              json: storageState(),
            }),
        },
      ],
      "413": [
        {
          name: "a body over 1 MiB",
          send: (ctx) =>
            call(ctx.main.origin, "PUT", "/v1/profile/acme", {
              key: ctx.alice,
              json: storageState("x".repeat(600 * 1024)),
            }),
        },
      ],
      "422": [
        {
          name: "a name of odd characters",
          send: (ctx) =>
            call(ctx.main.origin, "PUT", "/v1/profile/acme%2Fann", {
              key: ctx.alice,
              json: storageState(),
            }),
          check: (reply) =>
            expect(reply.body).toMatchObject({ detail: [{ loc: ["path", "name"] }] }),
        },
        {
          name: "a storage state over PROFILE_MAX_BYTES (512 KiB), within the body limit",
          send: (ctx) => {
            const state = storageState();
            const origin = { origin: "https://big.example", localStorage: [] as object[] };
            for (let i = 0; i < 200; i += 1) {
              origin.localStorage.push({ name: `k${i}`, value: "v".repeat(3000) });
            }
            return call(ctx.main.origin, "PUT", "/v1/profile/acme", {
              key: ctx.alice,
              json: { ...state, origins: [origin] },
            });
          },
          check: (reply) => {
            expect(reply.body).toMatchObject({ detail: [{ loc: ["body"], type: "value_error" }] });
            expect(reply.text).toContain("PROFILE_MAX_BYTES");
          },
        },
        {
          name: "a cookie without its value, and one of an unknown sameSite",
          send: (ctx) => {
            const [cookie] = storageState().cookies;
            const { value: _value, ...valueless } = cookie as NonNullable<typeof cookie>;
            return call(ctx.main.origin, "PUT", "/v1/profile/acme", {
              key: ctx.alice,
              json: { cookies: [valueless, { ...cookie, sameSite: "Sometimes" }] },
            });
          },
          check: (reply) => {
            const locs = (reply.body as { detail: { loc: unknown[] }[] }).detail.map((d) => d.loc);
            expect(locs).toContainEqual(["body", "cookies", 0, "value"]);
            expect(locs).toContainEqual(["body", "cookies", 1, "sameSite"]);
            expectNoValues(reply.text);
          },
        },
        {
          name: "a new profile past PROFILES_PER_OWNER (100)",
          send: async (ctx) => {
            limitedOwners += 1;
            const owner = `profiled_${limitedOwners}`;
            for (let i = 0; i < 100; i += 1) await newProfile(ctx, owner, `p${i}`);
            return call(ctx.main.origin, "PUT", "/v1/profile/one_more", {
              key: await ctx.main.keyFor(owner),
              json: storageState(),
            });
          },
          check: (reply) =>
            expect(reply.body).toMatchObject({
              detail: [{ loc: ["path", "name"], type: "value_error" }],
            }),
        },
      ],
      "500": failing((ctx) =>
        call(ctx.broken.origin, "PUT", "/v1/profile/acme", {
          key: ctx.brokenKey,
          json: storageState(),
        }),
      ),
    },

    deleteProfile: {
      "204": [
        {
          name: "a profile of the caller's",
          send: async (ctx) => {
            await newProfile(ctx, "alice", "to_delete");
            return call(ctx.main.origin, "DELETE", "/v1/profile/to_delete", { key: ctx.alice });
          },
        },
      ],
      "401": unauthorized((ctx, key) =>
        call(ctx.main.origin, "DELETE", "/v1/profile/acme", { key }),
      ),
      "404": [
        {
          name: "an unknown profile",
          send: (ctx) =>
            call(ctx.main.origin, "DELETE", "/v1/profile/never_saved", { key: ctx.alice }),
        },
        {
          name: "another owner's profile",
          send: async (ctx) => {
            await newProfile(ctx, "bob", "bobs_deleted");
            return call(ctx.main.origin, "DELETE", "/v1/profile/bobs_deleted", { key: ctx.alice });
          },
        },
        {
          name: "the address of the list",
          send: (ctx) => call(ctx.main.origin, "DELETE", "/v1/profile/list", { key: ctx.alice }),
        },
      ],
      "413": [
        {
          name: "a body over 1 MiB (a delete takes none, but any body is read)",
          send: (ctx) =>
            call(ctx.main.origin, "DELETE", "/v1/profile/acme", {
              key: ctx.alice,
              body: oversizedRunBody("skill_x"),
            }),
        },
      ],
      "422": [
        {
          name: "a name over 128 characters",
          send: (ctx) =>
            call(ctx.main.origin, "DELETE", `/v1/profile/${TOO_LONG_ID}`, { key: ctx.alice }),
        },
      ],
      "500": failing((ctx) =>
        call(ctx.broken.origin, "DELETE", "/v1/profile/acme", { key: ctx.brokenKey }),
      ),
    },
  };
}
