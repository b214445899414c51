import { secretBoxFor } from '../secrets/secret-box';
import { AppModelService } from '../services/apps/app-model-service';
import { CustomModelService } from '../services/custom-models/custom-model-service';
import { LogService } from '../services/logs/log-service';
import { LogRepository } from '../store/logs';
import type { CliSession } from './context';

/** The services the HTTP routes use, built from the CLI's session, so a command keeps the API's rules. */
export const cliServices = {
  appModels(session: CliSession): AppModelService {
    return new AppModelService(session.db(), session.spaceVersions());
  },

  customModels(session: CliSession): CustomModelService {
    const config = session.config();
    return new CustomModelService({
      db: session.db(),
      versions: session.spaceVersions(),
      secrets: secretBoxFor(config.plugins.socialPost.secretKeys),
      allowedHosts: config.plugins.net.ssrfAllowedHosts,
      autoModelName: config.autoModelName,
    });
  },

  logs(session: CliSession): LogService {
    return new LogService(new LogRepository(session.db()));
  },
};
