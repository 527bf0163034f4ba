-- Drives `rulemap serve` from a real Neovim (0.7+), headless, configured with the snippet
-- docs/lsp.md gives (rulemap.lua, loaded with -u):
--   RULEMAP_PYTHON=... RULEMAP_ROOT=... RULEMAP_OUT=... \
--     nvim --headless -u rulemap.lua -i NONE -c 'luafile lsp_smoke.lua'
-- 1. opens AGENTS.md (whose `@docs/guid.md` import is broken) and waits for pushed diagnostics,
-- 2. fixes the import in the buffer without saving and waits for the diagnostic to clear,
-- 3. hovers the import and the first line of a source file.
-- Results go to RULEMAP_OUT as JSON; the pytest wrapper (test_nvim.py) checks them.

local root = assert(os.getenv('RULEMAP_ROOT'))
local out = assert(os.getenv('RULEMAP_OUT'))
local python = assert(os.getenv('RULEMAP_PYTHON'))
local result = { version = vim.version(), steps = {} }

local function finish(ok, err)
  result.ok = ok
  result.error = err and tostring(err) or nil
  local f = assert(io.open(out, 'w'))
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd('qall!')
end

local function plain(diagnostics)
  local items = {}
  for _, d in ipairs(diagnostics) do
    local lsp = (d.user_data or {}).lsp or {}
    table.insert(items, {
      lnum = d.lnum, col = d.col, message = d.message, severity = d.severity,
      source = d.source, code = d.code or lsp.code,
    })
  end
  return items
end

local function hover_text(bufnr, line, character)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = line, character = character },
  }
  local responses = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', params, 15000) or {}
  for _, response in pairs(responses) do
    if response.err then
      return 'ERROR: ' .. vim.inspect(response.err)
    end
    local contents = response.result and response.result.contents
    if type(contents) == 'table' then
      return contents.value or vim.inspect(contents)
    end
    return contents
  end
  return nil
end

local function run()
  vim.g.rulemap_cmd = { python, '-m', 'rulemap', 'serve' }
  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/AGENTS.md'))
  local bufnr = vim.api.nvim_get_current_buf()
  -- rulemap.lua's autocmd started the client and attached the buffer (the client is listed
  -- once the server has answered `initialize`)
  local client_id = nil
  vim.wait(30000, function()
    for id, client in pairs(vim.lsp.buf_get_clients(bufnr)) do
      if client.name == 'rulemap' then
        client_id = id
      end
    end
    return client_id ~= nil
  end, 50)
  assert(client_id, 'rulemap.lua did not start and attach the client')
  result.steps.root_dir = vim.lsp.get_client_by_id(client_id).config.root_dir

  local function has_broken()
    for _, d in ipairs(plain(vim.diagnostic.get(bufnr))) do
      if d.code == 'broken-import' then
        return true
      end
    end
    return false
  end

  result.steps.pushed = vim.wait(30000, has_broken, 50)
  result.steps.diagnostics = plain(vim.diagnostic.get(bufnr))

  -- Fix the import in the buffer, unsaved.
  vim.api.nvim_buf_set_lines(bufnr, 2, 3, false, { 'See @docs/guide.md for more.' })
  result.steps.cleared = vim.wait(30000, function()
    return #vim.diagnostic.get(bufnr) == 0
  end, 50)
  result.steps.after_edit = plain(vim.diagnostic.get(bufnr))
  result.steps.modified = vim.api.nvim_buf_get_option(bufnr, 'modified')

  result.steps.hover_import = hover_text(bufnr, 2, 8)

  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/src/app.ts'))
  local source = vim.api.nvim_get_current_buf()
  result.steps.same_client = vim.lsp.buf_get_clients(source)[client_id] ~= nil
  result.steps.hover_source = hover_text(source, 0, 0)

  vim.lsp.stop_client(client_id)
  vim.wait(3000, function()
    return vim.lsp.get_client_by_id(client_id) == nil
  end, 50)
end

local ok, err = pcall(run)
finish(ok, err)
