-- wrk script: POST /api/saves until `total` saves exist (bench-server.sh prepends
-- `total = <n>` and `threads = <n>`); each thread stops after its share.

local created = 0

function request()
  return wrk.format("POST", "/api/saves", { ["Content-Type"] = "application/json" }, "{}")
end

function response(status, headers, body)
  created = created + 1
  if created >= math.ceil(total / threads) then
    wrk.thread:stop()
  end
end
