import type { components } from "@skillrun/client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useApi } from "../../api/api-context.js";
import { dataOf } from "../../api/errors.js";

export type KeyScope = components["schemas"]["KeyScope"];
export type ApiKey = components["schemas"]["ApiKey"];
export type ApiKeyCreated = components["schemas"]["ApiKeyCreated"];

/** Every scope a key can have, in the order the API lists them; `admin` is all of them. */
export const KEY_SCOPES: KeyScope[] = [
  "admin",
  "runs:read",
  "runs:write",
  "skills:write",
  "secrets:write",
  "webhooks:write",
  "schedules:write",
  "profiles:write",
  "keys:write",
];

export const KEYS_KEY = ["keys"] as const;

/** The caller's API keys (`GET /v1/key/list`, which needs `keys:write`): never the keys. */
export function useKeys() {
  const { client } = useApi();
  return useQuery({
    queryKey: KEYS_KEY,
    queryFn: async ({ signal }) => dataOf(await client.GET("/key/list", { signal })),
  });
}

/** Creates a key (`POST /v1/key`); `onCreated` gets it with the key itself, shown only then. */
export function useCreateKey(onCreated: (key: ApiKeyCreated) => void) {
  const { client } = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (request: { name: string; scopes: KeyScope[] }) =>
      dataOf(
        await client.POST("/key", {
          body: {
            scopes: request.scopes,
            ...(request.name.trim() && { name: request.name.trim() }),
          },
        }),
      ),
    onSuccess: async (created) => {
      onCreated(created);
      await queryClient.invalidateQueries({ queryKey: KEYS_KEY });
    },
  });
}

/** Revokes a key (`DELETE /v1/key/{id}`): it is refused from then on. */
export function useRevokeKey(id: string) {
  const { client } = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const result = await client.DELETE("/key/{id}", { params: { path: { id } } });
      // A 204 has no body to read: only a refusal is turned into an error.
      if (!result.response.ok) dataOf(result);
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEYS_KEY }),
  });
}
