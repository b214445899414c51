import { PERMISSIONS, ROLES, permissionsFor, type Permission } from '../../domain/permissions';
import { ERROR_CODES, type ErrorCode } from '../../errors/error-codes';
import type { PromptStatus } from '../../schemas/prompts';
import { ALLOWED_FROM, type ReviewAction } from '../../schemas/prompt-state';

/**
 * The Markdown of `info.description`: the rules the service-spec leaves open, written down once.
 * Tables come from the code (error codes, roles, review transitions), so they cannot drift from it.
 */

const table = (header: string[], rows: string[][]): string => [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');

const code = (text: string): string => `\`${text}\``;

function errorTable(): string {
  const codes = Object.keys(ERROR_CODES) as ErrorCode[];
  return table(
    ['Code', 'Status', 'Type'],
    codes.map((name) => [code(name), String(ERROR_CODES[name].status), code(ERROR_CODES[name].type)]),
  );
}

/** Permissions a key of the service-owner organization gets on top of its role. */
function serviceOwnerExtras(): Permission[] {
  const extra = new Set<Permission>();
  for (const role of ROLES) {
    const own = new Set(permissionsFor(role, false));
    permissionsFor(role, true).forEach((p) => {
      if (!own.has(p)) extra.add(p);
    });
  }
  return PERMISSIONS.filter((p) => extra.has(p));
}

function roleTable(): string {
  const granted = ROLES.map((role) => new Set(permissionsFor(role, false)));
  const byRole = PERMISSIONS.filter((p) => granted.some((set) => set.has(p)));
  const rows = byRole.map((p) => [code(p), ...granted.map((set) => (set.has(p) ? 'yes' : ''))]);
  const extras = serviceOwnerExtras().map(code).join(', ');
  return `${table(['Permission', ...ROLES], rows)}\n\nKeys of users of the organization that runs the service (service owners) also get ${extras}, whatever their role.`;
}

const REVIEW_ACTIONS: Record<ReviewAction, { endpoint: string; to: PromptStatus; who: string }> = {
  publish: { endpoint: 'POST /v1/prompts/{prompt_id}/publish', to: 'pending', who: 'the organization (`prompts:publish`)' },
  withdraw: { endpoint: 'POST /v1/prompts/{prompt_id}/withdraw', to: 'draft', who: 'the organization (`prompts:publish`)' },
  approve: { endpoint: 'POST /v1/internal/prompts/{prompt_id}/approve', to: 'approved', who: 'a service owner (`prompts:review`)' },
  decline: { endpoint: 'POST /v1/internal/prompts/{prompt_id}/decline', to: 'declined', who: 'a service owner (`prompts:review`), or the automated screening' },
};

function reviewTable(): string {
  const actions = Object.keys(REVIEW_ACTIONS) as ReviewAction[];
  return table(
    ['Action', 'Endpoint', 'From', 'To', 'By'],
    actions.map((action) => {
      const { endpoint, to, who } = REVIEW_ACTIONS[action];
      return [action, code(endpoint), ALLOWED_FROM[action].join(', '), to, who];
    }),
  );
}

const OVERVIEW = `Switchyard is a self-hostable, OpenAI-compatible API that routes chat completions across language-model providers, with Spaces (\`app\` in paths and fields), models, prompts, assistants, conversations and request logs.

This document (\`GET /v1/openapi.json\`) and the page that renders it (\`GET /docs\`) are served without a key: they describe the API and reveal nothing about any organization. So are the probes \`GET /healthz\` and \`GET /readyz\`. \`GET /metrics\` (Prometheus) is not listed either: it asks for the operator's \`METRICS_TOKEN\`, not a key (see docs/observability.md). Every operation listed here needs a key.`;

const AUTHENTICATION = `## Authentication

Send \`Authorization: Bearer <key>\` with every request. The operator makes the first key with the command-line tool: \`npm run -s cli -- bootstrap\` creates an organization, its owner, a Space and a first key; \`npm run -s cli -- keys\` creates, lists and revokes keys (\`keys create --service-owner\` makes a service owner's key, for the queue dashboard). From then on an owner's key (\`keys:manage\`) manages keys with \`/v1/keys\` (tag Keys) or the console's Keys page. Only a hash of each key is stored; the secret is shown once, when the key is created or rotated. A key belongs to a user of one organization, carries a role (or a \`custom\` set of permissions), may be limited to one Space, may expire, and may be limited to some models (\`allowed_models\`).

- No header: 401 \`missing_api_key\`. A malformed header, or an unknown, revoked or expired key: 401 \`invalid_api_key\`. A revoked or rotated secret stops at once in every API process.
- A key with \`allowed_models\` that names another model: 403 \`model_not_allowed\` (param \`model\`); automatic routing chooses only among its allowed models.
- Too many failed authentications from one client address, or with one key prefix: 429 \`too_many_failed_authentications\` with \`Retry-After\`, until the window ends.
- A key whose role lacks the operation's permission: 403 \`permission_denied\`. Each operation names its permission in its description and in \`x-permission\`.
- A key sees only its own organization: an id of another organization answers 404, exactly like an id that does not exist.`;

const STATUSES = `## Success statuses

201 for a \`POST\` that creates something, 202 for work accepted to run later, 204 when there is nothing to return, 200 for everything else (reads, updates and actions such as publishing a prompt). Each operation lists its own.`;

const ERRORS_INTRO = `## Errors

Every error has the same body: \`{"error": {"message": string, "type": string, "code": string, "param": string | null}}\`. \`code\` is stable and meant for programs; \`param\` names the field, parameter or header at fault.

- A malformed id in the path (not a uuid) answers 404 \`not_found\`, like an unknown id.
- Bodies must be \`Content-Type: application/json\` (415 otherwise) and at most \`BODY_LIMIT_BYTES\` (1 MiB unless configured; 413 naming the limit otherwise). Unknown body fields are rejected (400 \`unknown_field\`). File uploads (\`POST /v1/apps/{app_id}/files\`) are the exception: \`multipart/form-data\`, limited by \`SPACE_FILE_MAX_BYTES\`.
- A known path called with another method answers 405 \`method_not_allowed\` with an \`Allow\` header.
- Unexpected failures answer 500 \`internal_error\` with a request id to quote; no internals are exposed.

Every code the API answers with:`;

const PAGINATION = `## Pagination

Lists take \`limit\` (1 to 100, default 20) and \`after\` (the \`last_id\` of the previous page) and answer OpenAI's list envelope \`{"object": "list", "data": [...], "first_id", "last_id", "has_more"}\`. Items come newest first; a cursor stays stable while items are added. An \`after\` that names no item of the list answers 400 \`invalid_value\`.`;

const PROMPT_REVIEW = `## Prompt review

A prompt's \`status\` is derived from its timestamps: \`draft\` (nothing set), \`pending\` (\`published_on\` set), \`approved\` (\`reviewed_on\` and \`approved_on\` set) or \`declined\` (\`reviewed_on\` and \`decline_reason\` set). Publishing queues an automated screening (secrets, size) that declines a failing prompt with a reason before a service owner looks at it.`;

const PROMPT_REVIEW_RULES = `- Editing the text, title or description of an organization's prompt that is not a draft sends it back to \`draft\`: what was reviewed is no longer what is there.
- A public prompt, created by a service owner with \`POST /v1/internal/prompts\`, is approved at once; only service owners may edit it.
- An action from any other state answers 409 \`invalid_state_transition\`.`;

const PRIVACY = `## Privacy levels

A Space's \`policies.privacy_level\`, or the one a request sends in \`custom_headers.policies\`, decides what a request log keeps:

- \`1\` (default): everything is stored.
- \`2\`: the log is kept and visible, with the request and response masked.
- \`3\`: nothing is stored; \`GET /v1/logs/{log_id}\` answers 404 for such a request.`;

export function apiDescription(): string {
  return [
    OVERVIEW,
    AUTHENTICATION,
    `### Roles and permissions\n\n${roleTable()}`,
    STATUSES,
    `${ERRORS_INTRO}\n\n${errorTable()}`,
    PAGINATION,
    `${PROMPT_REVIEW}\n\n${reviewTable()}\n\n${PROMPT_REVIEW_RULES}`,
    PRIVACY,
  ].join('\n\n');
}
