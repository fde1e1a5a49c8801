import type { paths, SkillrunClient } from "@skillrun/client";
import createQueryHooks, { type OpenapiQueryClient } from "openapi-react-query";
import { createContext, type ReactNode, useContext, useMemo } from "react";

type QueryHooks = OpenapiQueryClient<paths>;

interface Api {
  client: SkillrunClient;
  /** TanStack Query hooks typed from the contract (openapi-react-query). */
  $api: QueryHooks;
  signOut: () => void;
}

const ApiContext = createContext<Api | null>(null);

export function ApiProvider(props: {
  client: SkillrunClient;
  signOut: () => void;
  children: ReactNode;
}) {
  const { client, signOut, children } = props;
  const value = useMemo(
    () => ({ client, $api: createQueryHooks(client), signOut }),
    [client, signOut],
  );
  return <ApiContext.Provider value={value}>{children}</ApiContext.Provider>;
}

/** The signed-in API: the client, its query hooks, and signing out. */
export function useApi(): Api {
  const api = useContext(ApiContext);
  if (!api) throw new Error("useApi outside ApiProvider");
  return api;
}
