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
 * exactly one wins. An approval with scope \`always\` also adds the rule "this tool with exactly these
 * arguments (their digest)" to the project's policy overlay and raises its version, in the same commit (an
 * ask published without an argument digest gets no rule: nothing could name its call; the CLI refuses it).
 * KEYS: record hash, pending zset, stream, overlay rules hash, overlay version.
 * ARGV: now, mode (read | settle), new state, settlement JSON, channel, id, keep-settled ms, stream cap,
 * always (\`1\` or empty), who decides.
 * Returns { outcome, base, state, settlement, run }: outcome \`missing\`, \`won\` (this call settled it),
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
    local base = cjson.decode(redis.call('HGET', h, 'base'))
    if ARGV[9] == '1' and type(base.argsDigest) == 'string' then
      local version = redis.call('INCR', KEYS[5])
      redis.call('HSET', KEYS[4], id, cjson.encode({id = id, tool = base.tool, argsDigest = base.argsDigest,
        description = base.details.description, by = ARGV[10], at = tonumber(now), version = version}))
    end
  end
end
local f = redis.call('HMGET', h, 'base', 'state', 'settled', 'run')
return {outcome, f[1], f[2], f[3] or '', f[4] or ''}
`;

/**
 * Marks an approved ask's call as started by a worker and enters it in the runs stream, read at once into
 * that worker's pending list (no one else's entry can be undelivered: every entry is added and read in one
 * script). Refuses (returns \`{'refused', state, run}\`) unless the ask is \`approved\` and not yet started, so
 * an approval runs at most once. KEYS: record hash, runs stream. ARGV: worker, now, group. Returns
 * \`{'started', entry id}\`.
 */
export const START_SCRIPT = `
local h = KEYS[1]
local f = redis.call('HMGET', h, 'state', 'run')
if f[1] ~= 'approved' or f[2] then return {'refused', f[1] or 'missing', f[2] or ''} end
local id = string.match(h, ':approval:(.+)$')
pcall(redis.call, 'XGROUP', 'CREATE', KEYS[2], ARGV[3], '0', 'MKSTREAM')
redis.call('XADD', KEYS[2], '*', 'id', id, 'worker', ARGV[1])
local read = redis.call('XREADGROUP', 'GROUP', ARGV[3], ARGV[1], 'COUNT', 1, 'STREAMS', KEYS[2], '>')
local entry = read[1][2][1][1]
redis.call('HSET', h, 'run', cjson.encode({state = 'started', worker = ARGV[1], at = tonumber(ARGV[2]), entry = entry}))
return {'started', entry}
`;

/**
 * Ends a started call's run: \`finished\` by its worker, or \`interrupted\` by a claim that found its entry
 * idle (the worker died). Only a run still \`started\` changes, so a finish racing a claim counts once.
 * KEYS: record hash, runs stream. ARGV: new run state, now, group, entry id, who (the claiming worker).
 * Returns the run state after the call.
 */
export const END_RUN_SCRIPT = `
local h = KEYS[1]
redis.call('XACK', KEYS[2], ARGV[3], ARGV[4])
redis.call('XDEL', KEYS[2], ARGV[4])
local run = redis.call('HGET', h, 'run')
if not run then return 'missing' end
local r = cjson.decode(run)
if r.state ~= 'started' then return r.state end
r.state = ARGV[1]
r.ended = tonumber(ARGV[2])
if ARGV[1] == 'interrupted' then r.claimedBy = ARGV[5] end
redis.call('HSET', h, 'run', cjson.encode(r))
return r.state
`;
