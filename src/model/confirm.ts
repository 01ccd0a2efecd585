/**
 * Which operations ask the user before they are sent (`--confirm destructive`): the destructive ones, DELETE and
 * those `x-mcp: { confirm: true }` marks, unless `x-mcp: { confirm: false }` says otherwise.
 */
import type { Operation } from './types.js';

/** `--confirm`'s values: `destructive` asks before each destructive operation. */
export const CONFIRM_POLICIES = ['destructive'] as const;
export type ConfirmPolicy = typeof CONFIRM_POLICIES[number];

/** The tool is annotated destructive: a DELETE, or an operation the spec's author marks `x-mcp: { confirm: true }`. */
export function isDestructive(op: Operation): boolean {
  return op.method === 'delete' || op.mcp?.confirm === true;
}

/** The tool asks the user before it sends the request: `x-mcp` confirm when given, else whether it is destructive. */
export function asksConfirmation(op: Operation, policy: ConfirmPolicy | undefined): boolean {
  return policy === 'destructive' && (op.mcp?.confirm ?? isDestructive(op));
}
