/**
 * The gate's shared state in Redis: each check is one Lua script, so it is atomic across every
 * process. Time comes from Redis (`TIME`), so processes with skewed clocks agree on windows.
 *
 * Keys (under the deployment's QUEUE_PREFIX; use {braces} in the prefix on Redis Cluster so all
 * of them share a slot): `<prefix>:gate:w:<key>` a hash window-start → used, `<prefix>:gate:cd:<key>`
 * the cooldown end (ms), `<prefix>:gate:lease:<key>` a sorted set holder → lease end.
 */
import { Redis } from 'ioredis';
import { redisConnection } from '../queue/backend.js';
import type { GateStore, Reservation, WindowReservation } from './gate-store.js';

// KEYS: cooldown keys, then window hashes. ARGV: #cooldowns, then per window: window ms, amount, limit.
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ncd = tonumber(ARGV[1])
for i = 1, ncd do
  local untilMs = tonumber(redis.call('GET', KEYS[i]) or '0')
  if untilMs > now then return {-1, untilMs - now} end
end
local n = #KEYS - ncd
local starts = {}
for i = 1, n do
  local wms = tonumber(ARGV[1 + (i - 1) * 3 + 1])
  local amount = tonumber(ARGV[1 + (i - 1) * 3 + 2])
  local limit = tonumber(ARGV[1 + (i - 1) * 3 + 3])
  local ws = math.floor(now / wms) * wms
  starts[i] = ws
  local used = tonumber(redis.call('HGET', KEYS[ncd + i], string.format('%d', ws)) or '0')
  if used + amount > limit then return {i, ws + wms - now} end
end
local out = {0, 0}
for i = 1, n do
  local wms = tonumber(ARGV[1 + (i - 1) * 3 + 1])
  local amount = tonumber(ARGV[1 + (i - 1) * 3 + 2])
  local key = KEYS[ncd + i]
  local ws = starts[i]
  redis.call('HINCRBY', key, string.format('%d', ws), amount)
  -- keep the current and the previous window only
  if redis.call('HLEN', key) > 2 then
    for _, f in ipairs(redis.call('HKEYS', key)) do
      if tonumber(f) < ws - wms then redis.call('HDEL', key, f) end
    end
  end
  redis.call('PEXPIRE', key, 2 * wms)
  out[#out + 1] = string.format('%d', ws)
end
return out
`;

// KEYS[1] window hash. ARGV: window start, delta. Never below 0; a vanished window is not recreated.
const ADJUST = `
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if not cur then return 0 end
local v = tonumber(cur) + tonumber(ARGV[2])
if v < 0 then v = 0 end
redis.call('HSET', KEYS[1], ARGV[1], string.format('%d', v))
return v
`;

// KEYS: window hashes. ARGV: window ms per key.
const USED = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {}
for i = 1, #KEYS do
  local wms = tonumber(ARGV[i])
  local ws = math.floor(now / wms) * wms
  out[i] = tonumber(redis.call('HGET', KEYS[i], string.format('%d', ws)) or '0')
end
return out
`;

// KEYS[1] cooldown key. ARGV[1] ms. Keeps a later end already set.
const COOLDOWN = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local untilMs = now + tonumber(ARGV[1])
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilMs > cur then redis.call('SET', KEYS[1], string.format('%d', untilMs), 'PX', tonumber(ARGV[1])) end
return 1
`;

// KEYS[1] lease set. ARGV: holder, limit, lease ms.
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == false and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`;

interface GateCommands {
  gateReserve(numKeys: number, ...args: Array<string | number>): Promise<Array<number | string>>;
  gateAdjust(key: string, windowStart: string, delta: number): Promise<number>;
  gateUsed(numKeys: number, ...args: Array<string | number>): Promise<number[]>;
  gateCooldown(key: string, ms: number): Promise<number>;
  gateAcquire(key: string, holder: string, limit: number, leaseMs: number): Promise<number>;
}

export class RedisGateStore implements GateStore {
  readonly kind = 'redis' as const;
  readonly #redis: Redis & GateCommands;
  readonly #prefix: string;

  constructor(redisUrl: string, prefix: string) {
    // Unlike BullMQ's blocking connections, a gate check should fail (the job retries) rather
    // than wait for the whole of a Redis outage.
    const redis = new Redis({ ...(redisConnection(redisUrl) as object), maxRetriesPerRequest: 2, lazyConnect: false });
    redis.on('error', () => undefined); // reported by the awaited commands
    redis.defineCommand('gateReserve', { lua: RESERVE });
    redis.defineCommand('gateAdjust', { numberOfKeys: 1, lua: ADJUST });
    redis.defineCommand('gateUsed', { lua: USED });
    redis.defineCommand('gateCooldown', { numberOfKeys: 1, lua: COOLDOWN });
    redis.defineCommand('gateAcquire', { numberOfKeys: 1, lua: ACQUIRE });
    this.#redis = redis as Redis & GateCommands;
    this.#prefix = prefix;
  }

  #k(kind: 'w' | 'cd' | 'lease', key: string): string {
    return `${this.#prefix}:gate:${kind}:${key}`;
  }

  async reserve(windows: WindowReservation[], cooldownKeys: string[]): Promise<Reservation> {
    const keys = [...cooldownKeys.map((k) => this.#k('cd', k)), ...windows.map((w) => this.#k('w', w.key))];
    const args = [String(cooldownKeys.length), ...windows.flatMap((w) => [String(w.windowMs), String(Math.ceil(w.amount)), String(w.limit)])];
    const r = await this.#redis.gateReserve(keys.length, ...keys, ...args);
    const refused = Number(r[0]);
    if (refused === 0) return { ok: true, windowStarts: r.slice(2).map(Number) };
    return { ok: false, refused: refused === -1 ? -1 : refused - 1, retryAfterMs: Math.max(1, Number(r[1])) };
  }

  async adjust(entries: Array<{ key: string; windowMs: number; windowStart: number; delta: number }>): Promise<void> {
    for (const e of entries) {
      if (e.delta !== 0) await this.#redis.gateAdjust(this.#k('w', e.key), String(e.windowStart), Math.round(e.delta));
    }
  }

  async used(windows: Array<{ key: string; windowMs: number }>): Promise<number[]> {
    if (windows.length === 0) return [];
    const r = await this.#redis.gateUsed(windows.length, ...windows.map((w) => this.#k('w', w.key)), ...windows.map((w) => String(w.windowMs)));
    return r.map(Number);
  }

  async cooldown(key: string, ms: number): Promise<void> {
    await this.#redis.gateCooldown(this.#k('cd', key), Math.max(1, Math.ceil(ms)));
  }

  async acquire(key: string, holder: string, limit: number, leaseMs: number): Promise<boolean> {
    return (await this.#redis.gateAcquire(this.#k('lease', key), holder, limit, Math.ceil(leaseMs))) === 1;
  }

  async release(key: string, holder: string): Promise<void> {
    await this.#redis.zrem(this.#k('lease', key), holder);
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}
