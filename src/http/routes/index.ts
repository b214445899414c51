import type { Services } from '../../services/container';
import type { Route } from '../route';
import { promptRoutes } from './prompts';

/** Every authenticated API route, in the order the OpenAPI document lists them. */
export function allRoutes(services: Services): Route[] {
  return [...promptRoutes(services)];
}
