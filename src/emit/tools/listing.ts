import type { ApiModel, Operation } from '../../model/types.js';
import type { NamePlan } from '../../names/plan.js';
import { toolDescription } from '../shared/describe.js';
import { inputSchema } from './input-schema.js';
import { isDestructive } from '../../model/confirm.js';

/** The tools/list entry the generated server publishes for an operation (sizes a selection: `report`). */
export function toolListing(model: ApiModel, plan: NamePlan, op: Operation): Record<string, unknown> {
  const names = plan.operations.get(op.id);
  const readOnly = op.method === 'get' || op.method === 'head';
  return {
    name: names?.toolName,
    title: names?.title,
    description: toolDescription(op),
    inputSchema: inputSchema(model, plan, op),
    annotations: { title: names?.title, readOnlyHint: readOnly, destructiveHint: isDestructive(op), idempotentHint: readOnly || op.method === 'put' || op.method === 'delete' },
  };
}
