/**
 * Lua scripts of the shared circuit breakers, run atomically in Redis. Per model, a hash holds the
 * counting window (`window_start`, `failures`, `successes`) while the breaker is closed, and `until`
 * (epoch ms the cooldown ends) with `cooldown` (its length) while it is open. A second hash lists the
 * open models (model id → until) for workers that start later, and every change is published as
 * `<model id> <until>` (until 0: closed).
 */

/**
 * A failed call. KEYS: breaker hash, open-models hash, probe lock. ARGV: model id, now, window ms,
 * min failures, failure ratio, base cooldown ms, max cooldown ms, channel. Returns `until` (0: closed).
 */
export const RECORD_FAILURE = `
local key, openKey, probeKey = KEYS[1], KEYS[2], KEYS[3]
local id, now, window = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local minFailures, ratio = tonumber(ARGV[4]), tonumber(ARGV[5])
local base, maxCooldown, channel = tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8]
local s = redis.call('HMGET', key, 'until', 'cooldown', 'window_start', 'failures', 'successes')
local openUntil, cooldown = tonumber(s[1]) or 0, tonumber(s[2]) or 0
local function open(ms)
  local u = now + ms
  redis.call('DEL', key, probeKey)
  redis.call('HSET', key, 'until', u, 'cooldown', ms)
  redis.call('HSET', openKey, id, u)
  redis.call('PUBLISH', channel, id .. ' ' .. u)
  return u
end
if openUntil > 0 then
  if now < openUntil then return openUntil end
  return open(math.min(math.max(cooldown, base) * 2, maxCooldown))
end
local start, failures, successes = tonumber(s[3]) or 0, tonumber(s[4]) or 0, tonumber(s[5]) or 0
if now - start >= window then
  start, failures, successes = now, 0, 0
end
failures = failures + 1
if failures >= minFailures and failures >= ratio * (failures + successes) then return open(base) end
redis.call('HSET', key, 'window_start', start, 'failures', failures, 'successes', successes)
redis.call('PEXPIRE', key, window * 2)
return 0
`;

/** Successful calls of a closed breaker, counted in batches. KEYS: breaker hash. ARGV: now, window ms, count. */
export const RECORD_SUCCESSES = `
local key, now, window, count = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local s = redis.call('HMGET', key, 'until', 'window_start', 'failures', 'successes')
if (tonumber(s[1]) or 0) > 0 then return 0 end
local start, failures, successes = tonumber(s[2]) or 0, tonumber(s[3]) or 0, tonumber(s[4]) or 0
if now - start >= window then
  start, failures, successes = now, 0, 0
end
redis.call('HSET', key, 'window_start', start, 'failures', failures, 'successes', successes + count)
redis.call('PEXPIRE', key, window * 2)
return 1
`;

/** A call to an open model succeeded (a probe): closes it. KEYS: breaker hash, open-models hash, probe lock. ARGV: model id, channel. */
export const CLOSE = `
local key, openKey, probeKey = KEYS[1], KEYS[2], KEYS[3]
local openUntil = tonumber(redis.call('HGET', key, 'until')) or 0
if openUntil == 0 then return 0 end
redis.call('DEL', key, probeKey)
redis.call('HDEL', openKey, ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[1] .. ' 0')
return 1
`;
