-- wrk script: POST /api/scores with plausible `words` games of random players.
-- bench-server.sh prepends `tokens = {...}`, `week = <n>` and `played_at = <ms>`.

local function hex(digits)
  local out = {}
  for i = 1, digits do
    out[i] = string.format("%x", math.random(0, 15))
  end
  return table.concat(out)
end

local function uuid_v4()
  return hex(8) .. "-" .. hex(4) .. "-4" .. hex(3) .. "-" ..
    string.format("%x", math.random(8, 11)) .. hex(3) .. "-" .. hex(12)
end

function setup(thread)
  thread:set("seed", math.random(1, 1000000))
end

function init(args)
  math.randomseed(seed or os.time())
end

function request()
  local token = tokens[math.random(#tokens)]
  -- 60 s of typing without mistakes: value = correct characters × 20 (net WPM × 100).
  local chars = math.random(200, 1700)
  local body = string.format(
    '{"scoreId":"%s","mode":"words","week":%d,"value":%d,"playedAt":%d,' ..
    '"stats":{"durationMs":60000,"correctChars":%d,"errors":0,"keystrokes":%d,"correctKeystrokes":%d}}',
    uuid_v4(), week, chars * 20, played_at, chars, chars, chars)
  return wrk.format("POST", "/api/scores",
    { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token }, body)
end
