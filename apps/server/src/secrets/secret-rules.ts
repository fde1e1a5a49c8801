// What a secret may be; openapi.yaml says the same to clients (SecretName, PutSecretRequest).

/** A name as skills read it (`secrets.<name>`); `list` names the list of secrets. */
export const SECRET_NAME_PATTERN = /^(?!list$)[A-Za-z_][A-Za-z0-9_]*$/;
export const MAX_SECRET_NAME_LENGTH = 128;
/** Characters of a value: room for a private key or a service account's JSON. */
export const MAX_SECRET_VALUE_LENGTH = 65_536;
/** Secrets one owner may have, so their list stays one short page. */
export const MAX_SECRETS_PER_OWNER = 1000;

/** Why `name` cannot name a secret, or undefined when it can. */
export function secretNameProblem(name: string): string | undefined {
  if (name.length > MAX_SECRET_NAME_LENGTH) {
    return `a secret name has at most ${MAX_SECRET_NAME_LENGTH} characters`;
  }
  if (name === "list") return `"list" names the list of secrets, not a secret`;
  if (!SECRET_NAME_PATTERN.test(name)) {
    return `a secret name is a letter or _, then letters, digits or _ (as in secrets.api_token), got ${JSON.stringify(name)}`;
  }
  return undefined;
}

/** Why `value` cannot be a secret's value, or undefined when it can. */
export function secretValueProblem(value: string): string | undefined {
  if (value === "") return "a secret's value cannot be empty";
  if ([...value].length > MAX_SECRET_VALUE_LENGTH) {
    return `a secret's value has at most ${MAX_SECRET_VALUE_LENGTH} characters`;
  }
  if (value.includes("\0")) return "a secret's value cannot contain NUL characters";
  return undefined;
}
