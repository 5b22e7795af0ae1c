/**
 * @module fleet/audit-scripts
 * The two Lua scripts behind the audit stream. Appending reads the chain's head and adds the records after it
 * in one atomic step, so any number of workers appending at once keep one linear chain; the link is
 * core/audit-chain.ts's `linkHash` (SHA-1 of `prev \n seq \n digest`, the one hash a script can compute).
 * Trimming removes only records already exported, and writes what the kept records follow.
 */

/**
 * Appends one writer's batch of records. KEYS: stream, head hash, the writer's last-batch key.
 * ARGV: batch number, max length (0: none), refuse (`1`: a batch that would pass the max length is refused;
 * otherwise it is appended and the caller trims), then digest and canonical record text of each record.
 * A batch number the writer already appended is not appended again (its reply was lost on the way back).
 * Returns { outcome (`ok` | `again` | `full`), seq of the last record, its hash, the stream's length }.
 */
export const APPEND_SCRIPT = `
local done = redis.call('GET', KEYS[3])
local head = redis.call('HMGET', KEYS[2], 'seq', 'hash')
local seq = tonumber(head[1] or '0')
local prev = head[2] or '${"0".repeat(40)}'
if done and tonumber(done) >= tonumber(ARGV[1]) then
  return {'again', string.format('%d', seq), prev, redis.call('XLEN', KEYS[1])}
end
local count = (#ARGV - 3) / 2
local length = redis.call('XLEN', KEYS[1])
local max = tonumber(ARGV[2])
if max > 0 and ARGV[3] == '1' and length + count > max then
  return {'full', string.format('%d', seq), prev, length}
end
for i = 0, count - 1 do
  seq = seq + 1
  local digest = ARGV[4 + 2 * i]
  local n = string.format('%d', seq)
  local hash = redis.sha1hex(prev .. '\\n' .. n .. '\\n' .. digest)
  redis.call('XADD', KEYS[1], '*', 'seq', n, 'prev', prev, 'digest', digest, 'hash', hash, 'record', ARGV[5 + 2 * i])
  prev = hash
end
redis.call('HSET', KEYS[2], 'seq', string.format('%d', seq), 'hash', prev)
redis.call('SET', KEYS[3], ARGV[1], 'EX', 86400)
return {'ok', string.format('%d', seq), prev, length + count}
`;

/**
 * Removes the records up to and including an exported one, while the caller still holds the trim lock.
 * KEYS: stream, trimmed hash, trim lock. ARGV: lock token, last exported id, its seq, its hash, where they
 * were exported, by whom, when. Returns the number removed, or -1 when the lock was lost, -2 when the last
 * exported record is not the one the stream holds under that id.
 */
export const TRIM_SCRIPT = `
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return -1 end
local found = redis.call('XRANGE', KEYS[1], ARGV[2], ARGV[2])
if #found == 0 then return -2 end
local fields = found[1][2]
local hash
for i = 1, #fields, 2 do if fields[i] == 'hash' then hash = fields[i + 1] end end
if hash ~= ARGV[4] then return -2 end
local ms, n = string.match(ARGV[2], '^(%d+)%-(%d+)$')
local removed = redis.call('XTRIM', KEYS[1], 'MINID', ms .. '-' .. string.format('%d', tonumber(n) + 1))
redis.call('HSET', KEYS[2], 'seq', ARGV[3], 'hash', ARGV[4], 'to', ARGV[5], 'by', ARGV[6], 'at', ARGV[7])
redis.call('DEL', KEYS[3])
return removed
`;
