import type { operations } from "@skillrun/contract";
import type { Request, RequestHandler, Response } from "express";

/** An operationId of openapi.yaml. */
export type OperationId = keyof operations;

type Part<T> = [NonNullable<T>] extends [never] ? Record<string, never> : NonNullable<T>;

/** The path parameters of an operation, as the contract types them. */
export type PathOf<Op extends OperationId> = Part<operations[Op]["parameters"]["path"]>;
/** Its query parameters, converted to their types by the validator. */
export type QueryOf<Op extends OperationId> = Part<operations[Op]["parameters"]["query"]>;
/** Its JSON request body. */
export type BodyOf<Op extends OperationId> = operations[Op] extends {
  requestBody: { content: { "application/json": infer Body } };
}
  ? Body
  : undefined;
/** The JSON body of its 200 response. */
export type ResultOf<Op extends OperationId> = operations[Op]["responses"] extends {
  200: { content: { "application/json": infer Result } };
}
  ? Result
  : unknown;

/** A request of operation `Op`, already checked against openapi.yaml by the validator. */
export type OperationRequest<Op extends OperationId> = Request<
  PathOf<Op>,
  ResultOf<Op>,
  BodyOf<Op>,
  QueryOf<Op>
>;

/**
 * The route handler of operation `Op` of openapi.yaml: its request's params, query and body and
 * its response's JSON are typed from the contract. The types hold because the validator has
 * checked (and converted) the request before the handler runs; that is the one assumption made.
 */
export function operation<Op extends OperationId>(
  _operationId: Op,
  handler: (req: OperationRequest<Op>, res: Response<ResultOf<Op>>) => Promise<void>,
): RequestHandler {
  return handler as unknown as RequestHandler;
}
