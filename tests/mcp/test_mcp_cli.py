"""`stepsmith mcp FOLDER`: a folder that is not one is a usage error, before any server starts."""

from stepsmith.runner.cli import main


def test_a_folder_that_is_not_one_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "file.txt").write_text("x")
    for bad in (tmp_path / "missing", tmp_path / "file.txt"):
        assert main(["mcp", str(bad)]) == 2
        assert "not a folder" in capsys.readouterr().err
