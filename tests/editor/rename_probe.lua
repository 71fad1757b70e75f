-- Headless Neovim (0.7.2) renames a step id through stepsmith's server, as a user would:
-- cursor on the id, vim.lsp.buf.rename (prepareRename, then rename; the client applies the
-- WorkspaceEdit itself), :wall. Then the probe writes what it saw and quits.
-- nvim --headless --clean -n -c "luafile rename_probe.lua" path/to/workflow.yaml
-- Env: PROBE_PY, PROBE_OUT, PROBE_ROOT, PROBE_LINE / PROBE_COL (0-based cursor),
--      PROBE_NEW_NAME, PROBE_WAIT_FOR (a path that exists once the edit is applied),
--      PROBE_TIMEOUT_MS.
local t0 = vim.loop.hrtime()
local function ms() return (vim.loop.hrtime() - t0) / 1e6 end

local py = os.getenv("PROBE_PY") or "python3"
local out = os.getenv("PROBE_OUT") or "result.json"
local root = os.getenv("PROBE_ROOT") or vim.fn.getcwd()
local line = tonumber(os.getenv("PROBE_LINE") or "0")
local col = tonumber(os.getenv("PROBE_COL") or "0")
local new_name = os.getenv("PROBE_NEW_NAME") or "renamed"
local wait_for = os.getenv("PROBE_WAIT_FOR")
local timeout = tonumber(os.getenv("PROBE_TIMEOUT_MS") or "20000")

local result = { nvim = vim.version(), events = {}, messages = {} }
local function ev(name) table.insert(result.events, { name, ms() }) end

local function finish(code)
  result.total_ms = ms()
  vim.fn.writefile({ vim.fn.json_encode(result) }, out)
  if code == 0 then vim.cmd("qall!") else vim.cmd("cquit " .. code) end
end

-- keep what the server says (window/showMessage) and what nvim reports (vim.notify)
local notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(result.messages, tostring(msg))
  return notify(msg, level, opts)
end

local ok, err = pcall(function()
  local bufnr = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({
    name = "stepsmith",
    cmd = { py, "-P", "-m", "stepsmith.server" },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = "ws" } },
    handlers = {
      ["window/showMessage"] = function(_, params)
        table.insert(result.messages, params.message)
      end,
    },
  })
  assert(client_id, "start_client returned nil")
  vim.lsp.buf_attach_client(bufnr, client_id)
  local ready = vim.wait(timeout, function()
    local c = vim.lsp.get_client_by_id(client_id)
    return c ~= nil and c.initialized
  end, 20)
  assert(ready, "the server did not initialize")
  ev("initialized")

  vim.api.nvim_win_set_cursor(0, { line + 1, col })
  local prep = vim.lsp.buf_request_sync(bufnr, "textDocument/prepareRename",
    vim.lsp.util.make_position_params(), timeout)
  for _, r in pairs(prep or {}) do result.prepare = r.result; result.prepare_error = r.err end
  ev("prepared")

  local before = vim.api.nvim_buf_get_changedtick(bufnr)
  vim.lsp.buf.rename(new_name)
  local applied = vim.wait(timeout, function()
    return vim.api.nvim_buf_get_changedtick(bufnr) ~= before
      and (wait_for == nil or vim.loop.fs_stat(wait_for) ~= nil)
  end, 20)
  ev("applied=" .. tostring(applied))
  result.applied = applied
  vim.cmd("silent! wall")
  result.buffer = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")

  local client = vim.lsp.get_client_by_id(client_id)
  result.rename_provider = client.server_capabilities and client.server_capabilities.renameProvider
  client.stop()
  vim.wait(3000, function() return vim.lsp.client_is_stopped(client_id) end, 20)
  ev("stopped")
end)

if not ok then
  result.error = tostring(err)
  finish(2)
else
  finish(0)
end
