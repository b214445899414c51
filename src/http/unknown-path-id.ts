import { ApiError } from '../errors/api-error';

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
