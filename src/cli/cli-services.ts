import { createProviderRegistry } from '../providers/registry';
import { secretBoxFor } from '../secrets/secret-box';
import { AppModelService } from '../services/apps/app-model-service';
import { CustomModelService } from '../services/custom-models/custom-model-service';
import { LogService } from '../services/logs/log-service';
import { ModelAvailability } from '../services/models/model-availability';
import { LogRepository } from '../store/logs';
import type { CliSession } from './context';

/** The services the HTTP routes use, built from the CLI's session, so a command keeps the API's rules. */
export const cliServices = {
  appModels(session: CliSession): AppModelService {
    // The CLI reads the same environment as the service, so it judges provider keys as the service does.
    return new AppModelService(session.db(), {
      versions: session.spaceVersions(),
      availability: new ModelAvailability(createProviderRegistry(session.config())),
    });
  },

  customModels(session: CliSession): CustomModelService {
    const config = session.config();
    return new CustomModelService({
      db: session.db(),
      versions: session.spaceVersions(),
      secrets: secretBoxFor(config.secrets.keys),
      allowedHosts: config.plugins.net.ssrfAllowedHosts,
      autoModelName: config.autoModelName,
    });
  },

  logs(session: CliSession): LogService {
    return new LogService(new LogRepository(session.db()));
  },
};
