-- Drives `rulemap serve` from a real Neovim (0.7+), headless:
--   RULEMAP_PYTHON=... RULEMAP_ROOT=... RULEMAP_OUT=... nvim --headless --clean -c 'luafile lsp_smoke.lua'
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
  local client_id = vim.lsp.start_client({
    name = 'rulemap',
    cmd = { python, '-m', 'rulemap', 'serve' },
    root_dir = root,
  })
  assert(client_id, 'the client did not start')

  vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/AGENTS.md'))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(bufnr, client_id)

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
  vim.lsp.buf_attach_client(source, client_id)
  result.steps.hover_source = hover_text(source, 0, 0)

  vim.lsp.stop_client(client_id)
  vim.wait(3000, function()
    return vim.lsp.get_client_by_id(client_id) == nil
  end, 50)
end

local ok, err = pcall(run)
finish(ok, err)
