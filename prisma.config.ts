import { defineConfig } from 'prisma/config';
import { loadEnvFile } from './src/config/env-file';

// Prisma's own commands read `.env` as the service does (the environment wins).
loadEnvFile();

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations', seed: 'tsx prisma/seed.ts' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/switchyard' },
});
