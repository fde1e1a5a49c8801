/** What the API gives back for a secret input instead of its value. */
export const SECRET_MASK = "***";
