import { trainCategoryRouter } from './category-router';
import type { Contender } from './evaluate';
import { trainBestSingleRouter, trainCheapestRouter, trainRandomRouter } from './fixed-routers';
import { trainKnnRouter } from './knn-router';
import { trainOracleRouter } from './oracle-router';

/** The routers Switchyard's is compared with, in report order. */
export const BASELINES: readonly Contender[] = [
  { name: 'random', train: trainRandomRouter },
  { name: 'always-best-single', train: trainBestSingleRouter },
  { name: 'always-cheapest', train: trainCheapestRouter },
  { name: 'best-model-per-category', train: trainCategoryRouter },
  { name: 'knn', train: trainKnnRouter },
  { name: 'oracle', train: trainOracleRouter },
];
