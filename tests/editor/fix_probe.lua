-- Headless Neovim (0.7) applying stepsmith's quick fixes and fix-all the way a user does:
-- textDocument/codeAction -> vim.lsp.util.apply_workspace_edit; then signature help.
-- Env: PROBE_PY, PROBE_OUT, PROBE_ROOT, PROBE_SIG_LINE / PROBE_SIG_COL (0-based), PROBE_TIMEOUT_MS.
local py = os.getenv("PROBE_PY") or "python3"
local out = os.getenv("PROBE_OUT") or "result.json"
local root = os.getenv("PROBE_ROOT") or vim.fn.getcwd()
local timeout = tonumber(os.getenv("PROBE_TIMEOUT_MS") or "20000")
local result = {}

local function codes(bufnr)
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local code = d.code
    if code == nil and d.user_data and d.user_data.lsp then code = d.user_data.lsp.code end
    table.insert(list, code)
  end
  table.sort(list)
  return list
end

-- back to LSP diagnostics, as nvim's own code action request does (0.7 keeps only code/data)
local function lsp_diags(bufnr)
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local lsp = d.user_data and d.user_data.lsp or {}
    table.insert(list, { range = { start = { line = d.lnum, character = d.col },
      ["end"] = { line = d.end_lnum, character = d.end_col } }, message = d.message,
      severity = d.severity, source = d.source, code = lsp.code or d.code, data = lsp.data })
  end
  table.sort(list, function(a, b) return a.range.start.line < b.range.start.line end)
  return list
end

local function actions(bufnr, diags, only)
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = diags[1] and diags[1].range or { start = { line = 0, character = 0 }, ["end"] = { line = 0, character = 0 } },
    context = { diagnostics = diags, only = only } }
  local resp = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", params, timeout)
  for _, r in pairs(resp or {}) do if r.result then return r.result end end
  return {}
end

local ok, err = pcall(function()
  local bufnr = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({ name = "stepsmith", cmd = { py, "-P", "-m", "stepsmith.server" },
    root_dir = root, workspace_folders = { { uri = vim.uri_from_fname(root), name = "ws" } } })
  vim.lsp.buf_attach_client(bufnr, client_id)
  vim.wait(timeout, function() return #vim.diagnostic.get(bufnr) >= 3 end, 20)
  result.before = codes(bufnr)

  -- the quick fix of the first diagnostic (the refused import), applied by the client
  local acts = actions(bufnr, { lsp_diags(bufnr)[1] })
  result.quick_titles = {}
  for _, a in ipairs(acts) do table.insert(result.quick_titles, a.title) end
  vim.lsp.util.apply_workspace_edit(acts[1].edit, "utf-16")
  vim.wait(timeout, function() return #vim.diagnostic.get(bufnr) == #result.before - 1 end, 20)
  result.after_quick = codes(bufnr)

  -- fix-all for the rest
  local all = actions(bufnr, {}, { "source.fixAll" })
  result.fix_all_kinds = {}
  for _, a in ipairs(all) do table.insert(result.fix_all_kinds, a.kind) end
  vim.lsp.util.apply_workspace_edit(all[1].edit, "utf-16")
  vim.wait(timeout, function() return #vim.diagnostic.get(bufnr) == 0 end, 20)
  result.after_all = codes(bufnr)
  result.text = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)

  -- signature help inside a call typed at the end of the file
  local n = vim.api.nvim_buf_line_count(bufnr)
  vim.api.nvim_buf_set_lines(bufnr, n, n, false, { "", "", "def helper(x):", "    return decimal.Decimal(x, " })
  local sp = { textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = n + 3, character = #"    return decimal.Decimal(x, " } }
  local resp = vim.lsp.buf_request_sync(bufnr, "textDocument/signatureHelp", sp, timeout)
  for _, r in pairs(resp or {}) do
    if r.result then
      result.signature = r.result.signatures[1].label
      result.active = r.result.activeParameter
    end
  end
  vim.cmd("set nomodified")
  vim.lsp.get_client_by_id(client_id).stop()
  vim.wait(3000, function() return vim.lsp.client_is_stopped(client_id) end, 20)
end)
if not ok then result.error = tostring(err) end
vim.fn.writefile({ vim.fn.json_encode(result) }, out)
vim.cmd(ok and "qall!" or "cquit 2")
