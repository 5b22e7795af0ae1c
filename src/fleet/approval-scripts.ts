/**
 * @module fleet/approval-scripts
 * The two Lua scripts behind the Redis approval store. Each runs atomically on the server, so the one rule —
 * an ask leaves `pending` exactly once — holds across every process and machine. Both touch only keys of
 * one project (one hash tag, one Cluster slot). Times come from the caller's clock (ms since the epoch), so
 * every worker judges an expiry by the same `expiresAt` the record holds.
 */

/**
 * Publishes a pending ask. KEYS: record hash, all-ids zset, pending zset, stream.
 * ARGV: id, base JSON, createdAt, expiresAt, channel, stream length cap.
 */
export const PUBLISH_SCRIPT = `
local id, base = ARGV[1], ARGV[2]
redis.call('HSET', KEYS[1], 'base', base, 'state', 'pending', 'createdAt', ARGV[3], 'expiresAt', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], id)
redis.call('ZADD', KEYS[3], ARGV[4], id)
local event = base .. '\\n' .. 'pending' .. '\\n'
local entry = redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[6], '*', 'id', id, 'state', 'pending', 'record', event)
redis.call('PUBLISH', ARGV[5], entry .. '\\n' .. event)
return 1
`;

/**
 * Reads an ask, expiring it first when it is overdue, and in mode \`settle\` moves it out of \`pending\` when it
 * still is. The expiry and the answer go through the same commit, so of an expiry and an answer racing
 * exactly one wins. KEYS: record hash, pending zset, stream.
 * ARGV: now, mode (read | settle), new state, settlement JSON, channel, id, keep-settled ms, stream cap.
 * Returns { outcome, base, state, settlement }: outcome \`missing\`, \`won\` (this call settled it),
 * \`expired\` (this call expired it) or \`as-is\`.
 */
export const SETTLE_SCRIPT = `
local h = KEYS[1]
if redis.call('EXISTS', h) == 0 then return {'missing'} end
local now, id = ARGV[1], ARGV[6]
local state = redis.call('HGET', h, 'state')
local outcome = 'as-is'
local function commit(to, settled)
  redis.call('HSET', h, 'state', to, 'settled', settled)
  redis.call('ZREM', KEYS[2], id)
  if tonumber(ARGV[7]) > 0 then redis.call('PEXPIRE', h, ARGV[7]) end
  local event = redis.call('HGET', h, 'base') .. '\\n' .. to .. '\\n' .. settled
  local entry = redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[8], '*', 'id', id, 'state', to, 'record', event)
  redis.call('PUBLISH', ARGV[5], entry .. '\\n' .. event)
  state = to
end
if state == 'pending' then
  local created = tonumber(redis.call('HGET', h, 'createdAt'))
  local expires = tonumber(redis.call('HGET', h, 'expiresAt'))
  if tonumber(now) >= expires then
    commit('expired', '{"by":"toolgate","at":' .. now .. ',"reason":"no answer within ' .. string.format('%d', expires - created) .. ' ms"}')
    outcome = 'expired'
  elseif ARGV[2] == 'settle' then
    commit(ARGV[3], ARGV[4])
    outcome = 'won'
  end
end
local f = redis.call('HMGET', h, 'base', 'state', 'settled')
return {outcome, f[1], f[2], f[3] or ''}
`;
