-- wrk script: POST /api/scores with real games the server verifies by replay
-- (bench-server.sh and bench-deploy.mjs prepend `bodies = {...}`, each a save's token and a body).
-- Each thread walks the list from its own offset; past the end it resends: the same
-- scoreId is verified again and answered from its first receipt.

local next_body = 0

function setup(thread)
  thread:set("offset", math.random(0, 1000000))
end

function request()
  next_body = next_body + 1
  local entry = bodies[((next_body + offset) % #bodies) + 1]
  return wrk.format("POST", "/api/scores",
    { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. entry.token },
    entry.body)
end
