import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BatchConfig } from '../../src/config/batches';
import { readBatchConfig } from '../../src/config/batches';

/** The default Files and Batches configuration with a throwaway storage directory, and any overrides. */
export function testBatchConfig(overrides: Partial<BatchConfig> = {}): BatchConfig {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-files-'));
  return { ...readBatchConfig({}), fileStore: { kind: 'local', dir }, ...overrides };
}
