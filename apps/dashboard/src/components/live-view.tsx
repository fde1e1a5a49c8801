import { useQuery } from "@tanstack/react-query";
import { useApi } from "../api/api-context.js";
import { dataOf } from "../api/errors.js";
import { ErrorNote } from "./error-note.js";

/**
 * How often a fresh live view address is asked for: the server's expire a minute after they are
 * signed, and a stream ends with its address, so the image moves to a fresh one before.
 */
export const LIVE_URL_REFRESH_MS = 45_000;

/**
 * What the run's browser shows now: an image of the live view's signed address (a stream of
 * JPEGs the browser shows as they come, without the API key), its address renewed before it
 * expires. A parked run shows its last frame; a run without a browser shows nothing yet.
 */
export function LiveView(props: { runId: string }) {
  const { client } = useApi();
  const live = useQuery({
    queryKey: ["live_url", props.runId],
    queryFn: async ({ signal }) =>
      dataOf(
        await client.GET("/run/{id}/live_url", { params: { path: { id: props.runId } }, signal }),
      ),
    refetchInterval: LIVE_URL_REFRESH_MS,
    refetchIntervalInBackground: true,
    // A signed address is only good for a minute: never shown from an old cache.
    gcTime: 0,
  });
  return (
    <div className="live-view">
      <ErrorNote error={live.error} prefix="The live view could not be opened" />
      {live.data && (
        <img
          className="live-image"
          src={live.data}
          alt={`Live view of run ${props.runId}: what its browser shows now`}
          width={1280}
          height={720}
        />
      )}
    </div>
  );
}
