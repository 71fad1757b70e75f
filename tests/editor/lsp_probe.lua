-- Headless Neovim (0.7.2) as a real LSP client for stepsmith, adapted from
-- ../shared/editor-testing/nvim/probe.lua.
-- nvim --headless --clean -n -c "luafile lsp_probe.lua" path/to/step.py
-- Env: PROBE_PY (python with stepsmith), PROBE_OUT (json path), PROBE_ROOT (workspace root),
--      PROBE_HOVER_LINE (0-based line of a `def` to hover), PROBE_EXPECT (initial diagnostic count),
--      PROBE_TIMEOUT_MS.
local t0 = vim.loop.hrtime()
local function ms() return (vim.loop.hrtime() - t0) / 1e6 end

local py = os.getenv("PROBE_PY") or "python3"
local out = os.getenv("PROBE_OUT") or "result.json"
local root = os.getenv("PROBE_ROOT") or vim.fn.getcwd()
local hover_line = tonumber(os.getenv("PROBE_HOVER_LINE") or "0")
local expect = tonumber(os.getenv("PROBE_EXPECT") or "1")
local timeout = tonumber(os.getenv("PROBE_TIMEOUT_MS") or "20000")

local result = { nvim = vim.version(), events = {} }
local function ev(name) table.insert(result.events, { name, ms() }) end

local function finish(code)
  result.total_ms = ms()
  vim.fn.writefile({ vim.fn.json_encode(result) }, out)
  if code == 0 then vim.cmd("qall!") else vim.cmd("cquit " .. code) end
end

local function snapshot(bufnr)
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local code = d.code
    if code == nil and d.user_data and d.user_data.lsp then code = d.user_data.lsp.code end
    table.insert(list, { lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      severity = d.severity, message = d.message, source = d.source, code = code })
  end
  table.sort(list, function(a, b) return a.lnum < b.lnum end)
  return list
end

local ok, err = pcall(function()
  local bufnr = vim.api.nvim_get_current_buf()
  result.file = vim.api.nvim_buf_get_name(bufnr)
  local client_id = vim.lsp.start_client({
    name = "stepsmith",
    cmd = { py, "-P", "-m", "stepsmith.server" },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = "ws" } },
    on_init = function() ev("on_init") end,
  })
  assert(client_id, "start_client returned nil")
  vim.lsp.buf_attach_client(bufnr, client_id)
  ev("attached")

  local got = vim.wait(timeout, function() return #vim.diagnostic.get(bufnr) >= expect end, 20)
  ev("diagnostics=" .. tostring(got))
  result.diagnostics = snapshot(bufnr)

  -- hover on the step function's def line: the reach card
  vim.api.nvim_win_set_cursor(0, { hover_line + 1, 5 })
  local resp = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", vim.lsp.util.make_position_params(), timeout)
  ev("hover")
  result.hover = nil
  for _, r in pairs(resp or {}) do
    if r.result and r.result.contents then result.hover = r.result.contents.value end
  end

  -- edit: delete line 1 (the disallowed import); nvim sends an incremental didChange
  local before = #vim.diagnostic.get(bufnr)
  vim.api.nvim_buf_set_lines(bufnr, 0, 1, false, {})
  local got2 = vim.wait(timeout, function() return #vim.diagnostic.get(bufnr) == before - 1 end, 20)
  ev("after_edit=" .. tostring(got2))
  result.diagnostics_after_edit = snapshot(bufnr)
  -- and introduce a new violation at the end of the file
  local n = vim.api.nvim_buf_line_count(bufnr)
  vim.api.nvim_buf_set_lines(bufnr, n, n, false, { "", "", "def sneaky(x):", "    return x.__class__" })
  local got3 = vim.wait(timeout, function() return #vim.diagnostic.get(bufnr) == before end, 20)
  ev("after_second_edit=" .. tostring(got3))
  result.diagnostics_after_second_edit = snapshot(bufnr)
  vim.cmd("set nomodified")

  local client = vim.lsp.get_client_by_id(client_id)
  result.sync = client.server_capabilities and client.server_capabilities.textDocumentSync
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
