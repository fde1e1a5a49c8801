import { createRequire } from "node:module";
import express, { type RequestHandler } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cacheValidatorRouteMatchers } from "./route-matchers.js";
import { readMultipartAfterSecurity } from "./validator-multipart.js";

// These tests hold the patches to express-openapi-validator's internals to what they rely on:
// each fails when a release of the validator changes what its patch assumes.

const spec = {
  openapi: "3.1.0",
  info: { title: "patched", version: "1" },
  components: { securitySchemes: { HTTPBearer: { type: "http", scheme: "bearer" } } },
  security: [{ HTTPBearer: [] }],
  paths: {
    "/things/{id}": {
      get: {
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": {
            description: "a thing",
            content: { "application/json": { schema: { type: "object" } } },
          },
        },
      },
    },
    "/things/list": { get: { responses: { "200": { description: "things" } } } },
  },
};

function validatorStages(): RequestHandler[] {
  return OpenApiValidator.middleware({
    apiSpec: spec as never,
    validateSecurity: { handlers: { HTTPBearer: async () => true } },
    validateResponses: true,
    fileUploader: false,
  }) as RequestHandler[];
}

describe("route matchers cached (route-matchers.ts)", () => {
  let compilations = 0;
  let server: ReturnType<express.Express["listen"]>;
  let base = "";

  beforeAll(async () => {
    // The module the validator loads, reached as the patch reaches it; counted before the patch
    // wraps it, so every compilation the cache does not save shows here.
    const validatorRequire = createRequire(
      createRequire(import.meta.url).resolve("express-openapi-validator"),
    );
    const module = validatorRequire("path-to-regexp") as {
      pathToRegexp: (path: unknown, options?: unknown) => unknown;
    };
    const compile = module.pathToRegexp;
    module.pathToRegexp = (path, options) => {
      compilations += 1;
      return compile(path, options);
    };
    cacheValidatorRouteMatchers();
    const app = express();
    app.use(validatorStages());
    app.get("/things/:id", (_req, res) => {
      res.json({});
    });
    await new Promise<void>((ready) => {
      server = app.listen(0, "127.0.0.1", () => ready());
    });
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });
  afterAll(() => {
    server?.close();
  });

  it("the validator compiles its route matchers through path-to-regexp, and only once", async () => {
    const get = (path: string) =>
      fetch(`${base}${path}`, { headers: { authorization: "Bearer k" } });
    expect((await get("/things/a")).status).toBe(200);
    const afterFirst = compilations;
    // Zero would mean the validator no longer matches routes through this module: the patch
    // would silently do nothing.
    expect(afterFirst).toBeGreaterThan(0);
    for (const id of ["b", "c", "d"]) expect((await get(`/things/${id}`)).status).toBe(200);
    expect(compilations).toBe(afterFirst);
  });
});

describe("multipart read after the key check (validator-multipart.ts)", () => {
  it("the validator's stages are named as the splice expects, security before request", () => {
    const names = validatorStages().map((stage) => stage.name);
    expect(names).toContain("securityMiddleware");
    expect(names).toContain("requestMiddleware");
    expect(names.indexOf("securityMiddleware")).toBeLessThan(names.indexOf("requestMiddleware"));
  });

  it("puts the reader right after the key check", () => {
    const reader: RequestHandler = function multipartReader(_req, _res, next) {
      next();
    };
    const names = readMultipartAfterSecurity(validatorStages(), reader).map((stage) => stage.name);
    expect(names[names.indexOf("securityMiddleware") + 1]).toBe("multipartReader");
    expect(names.indexOf("multipartReader")).toBeLessThan(names.indexOf("requestMiddleware"));
  });

  it("refuses loudly when the stages it splices between are gone", () => {
    const unnamed: RequestHandler = (_req, _res, next) => next();
    expect(() => readMultipartAfterSecurity([unnamed], unnamed)).toThrow(/stages changed/);
  });
});
