import { ApiError } from "./errors.js";

/** The data of a successful openapi-fetch result; an ApiError for any other response. */
export function responseData<T>(result: { data?: T; error?: unknown; response: Response }): T {
  // Checked on the response rather than on `error`: an error with an empty body has none.
  if (!result.response.ok || result.data === undefined) {
    throw new ApiError(result.response, result.error);
  }
  return result.data;
}
