"""stepsmith.server: the pygls language server. Adapts stepsmith.runner to LSP; no analysis here."""
