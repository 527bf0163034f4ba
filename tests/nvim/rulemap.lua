-- Rulemap for Neovim 0.7+ without nvim-lspconfig (docs/lsp.md). Put it in your init.lua.
-- One server for the project (the nearest ancestor with .git, else the current directory),
-- attached to every file you open: Markdown instruction files get diagnostics, links and
-- completion; any other file gets the "what loads for this file" hover on its first line.
local rulemap = { client = nil }

local function project_root(file)
  local git = vim.fn.finddir('.git', vim.fn.fnamemodify(file, ':p:h') .. ';')
  if git ~= '' then
    return vim.fn.fnamemodify(git, ':p:h:h')
  end
  return vim.fn.getcwd()
end

vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
  group = vim.api.nvim_create_augroup('rulemap', { clear = true }),
  callback = function(args)
    if vim.bo[args.buf].buftype ~= '' then
      return
    end
    if not rulemap.client or vim.lsp.get_client_by_id(rulemap.client) == nil then
      rulemap.client = vim.lsp.start_client({
        name = 'rulemap',
        cmd = vim.g.rulemap_cmd or { 'rulemap', 'serve' },
        root_dir = project_root(args.file),
        -- settings as in VS Code's `rulemap.*` (docs/protocol.md), e.g.:
        init_options = vim.g.rulemap_settings or { hover = { sourceFiles = 'firstLine' } },
      })
    end
    vim.lsp.buf_attach_client(args.buf, rulemap.client)
  end,
})
