import { ApiError } from '../errors/api-error';
import { isRecordGone } from '../store/db-errors';

/**
 * What each id in a path names, as the services name it in their 404. A malformed id (not a uuid, a NUL,
 * undecodable percent-encoding) then answers exactly the body an unknown id gets, so the two cannot be told apart.
 */
export const RESOURCE_OF_PATH_ID: Readonly<Record<string, string>> = {
  app_id: 'Space',
  assistant_id: 'Assistant',
  batch_id: 'Batch',
  conversation_id: 'Conversation',
  file_id: 'File',
  job_id: 'Job',
  key_id: 'API key',
  log_id: 'Log',
  model: 'Model',
  model_id: 'Model',
  prompt_id: 'Prompt',
  response_id: 'Response',
};

/** The 404 of an unknown id in the path parameter `param`. */
export function unknownPathId(param: string): ApiError {
  return ApiError.notFound(RESOURCE_OF_PATH_ID[param] ?? 'Resource', param);
}

/**
 * A route's error as the client sees it: a row that vanished under a write (isRecordGone) is the 404 of
 * the route's innermost path id, exactly what the same request gets once the row is gone. Routes that
 * name their row in the body get the generic not found.
 */
export function vanishedRowAs404(err: unknown, params: Readonly<Record<string, unknown>>): unknown {
  if (!isRecordGone(err)) return err;
  const innermost = Object.keys(params).at(-1);
  return innermost === undefined ? ApiError.notFound('Resource') : unknownPathId(innermost);
}
