import type { JsonObject } from '../../domain/records.ts';
import { formatLocationName, newResourceId, type LocationPath } from '../aip/resource-names.ts';

/**
 * CES runs CreateApp and DeleteApp as long-running operations (google.longrunning.Operation).
 * Baton finishes them within the request, so the operation comes back already done, carrying
 * its result; clients that poll never need to.
 */
export function doneOperation(
  scope: LocationPath,
  type: 'google.cloud.ces.v1.App' | 'google.protobuf.Empty',
  result: JsonObject = {},
): JsonObject {
  return {
    name: `${formatLocationName(scope)}/operations/${newResourceId()}`,
    done: true,
    response: { '@type': `type.googleapis.com/${type}`, ...result },
  };
}
