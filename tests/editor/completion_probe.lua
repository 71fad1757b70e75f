-- Headless Neovim (0.7.2) accepting completions the way a person does: for each case, the
-- line is replaced by the text typed so far, `A<C-x><C-o>` asks the server (vim.lsp.omnifunc,
-- the built-in client), and `<C-y>` accepts the first entry of the popup menu. The buffer
-- line after that is what the test checks.
-- nvim --headless --clean -n -c "luafile completion_probe.lua" path/to/workflow.yaml
-- Env: PROBE_PY, PROBE_OUT (json), PROBE_ROOT, PROBE_CASES (json list of {line (1-based),
--      text}), PROBE_TIMEOUT_MS.
local py = os.getenv("PROBE_PY") or "python3"
local out = os.getenv("PROBE_OUT") or "result.json"
local root = os.getenv("PROBE_ROOT") or vim.fn.getcwd()
local cases = vim.fn.json_decode(os.getenv("PROBE_CASES") or "[]")
local timeout = tonumber(os.getenv("PROBE_TIMEOUT_MS") or "20000")

local result = { results = {} }
local bufnr = vim.api.nvim_get_current_buf()
local client_id

local function finish(code)
  vim.fn.writefile({ vim.fn.json_encode(result) }, out)
  if client_id then
    vim.lsp.get_client_by_id(client_id).stop()
    vim.wait(3000, function() return vim.lsp.client_is_stopped(client_id) end, 20)
  end
  vim.cmd("set nomodified")
  if code == 0 then vim.cmd("qall!") else vim.cmd("cquit " .. code) end
end

local function fail(msg)
  result.error = msg
  finish(2)
end

-- poll `cond` every 20 ms (the main loop runs in between: typeahead, LSP replies), then `k`
local function poll(cond, k, waited)
  waited = waited or 0
  if cond() then return k(true) end
  if waited > timeout then return k(false) end
  vim.defer_fn(function() poll(cond, k, waited + 20) end, 20)
end

local run_case
run_case = function(i)
  local case = cases[i]
  if case == nil then return finish(0) end
  vim.cmd("stopinsert")
  vim.api.nvim_buf_set_lines(bufnr, case.line - 1, case.line, false, { case.text })
  vim.api.nvim_win_set_cursor(0, { case.line, 0 })
  local keys = vim.api.nvim_replace_termcodes("A<C-x><C-o>", true, false, true)
  vim.api.nvim_feedkeys(keys, "nt", false)
  poll(function() return vim.fn.pumvisible() == 1 end, function(shown)
    local entry = { case = case, menu = shown }
    if shown then
      local info = vim.fn.complete_info({ "items" })
      entry.offered = {}
      for _, it in ipairs(info.items or {}) do table.insert(entry.offered, it.word) end
    end
    local accept = vim.api.nvim_replace_termcodes((shown and "<C-y>" or "") .. "<Esc>", true, false, true)
    vim.api.nvim_feedkeys(accept, "nt", false)
    poll(function() return vim.fn.mode() == "n" end, function()
      entry.after = vim.api.nvim_buf_get_lines(bufnr, case.line - 1, case.line, false)[1]
      table.insert(result.results, entry)
      run_case(i + 1)
    end)
  end)
end

local ok, err = pcall(function()
  vim.o.completeopt = "menuone,noinsert"  -- always a menu; nothing inserted before <C-y>
  client_id = vim.lsp.start_client({
    name = "stepsmith",
    cmd = { py, "-P", "-m", "stepsmith.server" },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = "ws" } },
  })
  assert(client_id, "start_client returned nil")
  vim.lsp.buf_attach_client(bufnr, client_id)
  vim.bo[bufnr].omnifunc = "v:lua.vim.lsp.omnifunc"
  local ready = vim.wait(timeout, function()
    local c = vim.lsp.get_client_by_id(client_id)
    return c ~= nil and c.initialized == true
  end, 20)
  assert(ready, "the server did not initialize")
  vim.wait(300, function() return false end, 20)  -- let didOpen arrive before the first request
end)
if not ok then return fail(tostring(err)) end
vim.defer_fn(function() run_case(1) end, 0)
