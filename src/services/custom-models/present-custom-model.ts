import type { CustomModelView } from '../../schemas/custom-models';
import type { ModelWithParent } from '../../store/models';
import { presentModel } from '../apps/present-model';
import { readStoredQuality } from './quality-profile';

/** A custom model as its organization sees it: the Model, its base URL and whether a key is stored (never the key). */
export function presentCustomModel(row: ModelWithParent): CustomModelView {
  return {
    ...presentModel(row),
    object: 'custom_model',
    base_url: row.api_target,
    has_api_key: row.api_key_sealed !== null,
    quality: readStoredQuality(row.quality_profile),
  };
}
