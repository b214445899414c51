import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { IRouter, Router } from 'express';
import type { ApiServices } from '../api-services';
import { queueAdminGuard } from '../middleware/queue-admin-guard';
import { stripUrlCredentials } from '../middleware/strip-url-credentials';

export const QUEUE_BOARD_PATH = '/admin/queues';

function queueBoard(services: ApiServices): Router {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({ queues: services.queues.all().map((queue) => new BullMQAdapter(queue)), serverAdapter });
  return serverAdapter.getRouter() as Router;
}

/**
 * Unauthenticated probes, and the service-owner queue dashboard, added to the app itself: a Router of
 * their own would be entered (and allocated for) by every API request on its way past.
 */
export function addOperationRoutes(router: IRouter, services: ApiServices): void {
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const report = await services.readiness();
    res.status(report.ready ? 200 : 503).json(report);
  });
  router.use(QUEUE_BOARD_PATH, queueAdminGuard(services.authenticator), stripUrlCredentials(), queueBoard(services));
}
