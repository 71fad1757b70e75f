"""stepsmith.runner.language: pure language-service logic over document text.

Used by the language server (`stepsmith.server`), which only adapts it to LSP:
incremental validation (`incremental`), manifest symbols/hover/completion (`manifest`),
step-file symbols/completion/quick fixes (`steps`), hover cards (`cards`).
"""
