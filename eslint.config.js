// @ts-check
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
// Last: turns off the stylistic rules that Prettier (`npm run format`, checked by `npm run lint`) decides.
const prettier = require('eslint-config-prettier');

module.exports = tseslint.config(
  { ignores: ['dist/**', 'src/generated/**', 'node_modules/**', 'coverage/**', 'bench-build/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
      'max-lines': ['warn', { max: 300, skipBlankLines: true, skipComments: true }],
      'max-params': ['warn', 3],
    },
  },
  {
    // Only store/ talks to Prisma (issue 20 §3): others call its repositories and `inTransaction`.
    files: ['src/**/*.ts', 'workers/**/*.ts'],
    ignores: ['src/store/**', 'src/generated/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'MemberExpression[property.name=/^\\$(transaction|queryRaw|executeRaw|queryRawUnsafe|executeRawUnsafe)$/]',
          message: 'Only store/ talks to Prisma: use inTransaction (store/db.ts) or a repository of store/.',
        },
        {
          selector:
            'MemberExpression[property.name=/^(findUnique|findUniqueOrThrow|findFirst|findFirstOrThrow|findMany|create|createMany|createManyAndReturn|update|updateMany|upsert|delete|deleteMany|count|aggregate|groupBy)$/] > MemberExpression.object > :matches(Identifier[name=/^(db|tx)$/], MemberExpression[property.name=/^(db|tx)$/]).object',
          message: 'Only store/ talks to Prisma: add the query to a repository of store/.',
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**/*.ts'],
    rules: { 'max-lines': 'off' },
  },
  prettier,
);
