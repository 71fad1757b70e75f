"""`stepsmith reach` fits the terminal (COLUMNS), never wraps inside a word, shows
explanations with --explain; `check` names a problem's step once."""

import re

import pytest
from manifest_kit import BASE, write_workflow
from stepsmith.runner.cli import main
from stepsmith.runner.reach import REACH_SENTENCE

WORDS = ["purchase_orders", "steps/bills.py:draft", "draft_bill", "invoice-matching"]


def reach(capsys, monkeypatch, columns, *argv):
    monkeypatch.setenv("COLUMNS", str(columns))
    assert main(["reach", *map(str, argv)]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("columns", [40, 60, 80, 100, 200])
def test_reach_fits_columns_and_never_splits_a_word(tmp_path, capsys, monkeypatch, columns):
    write_workflow(tmp_path / "wf", BASE)
    out = reach(capsys, monkeypatch, columns, tmp_path / "wf", "--explain")
    longest_word = max(len(w) for line in out.splitlines() for w in line.split())
    for line in out.splitlines():
        assert len(line.rstrip()) <= max(columns, longest_word + 20), (columns, line)
    flat = out.split()
    for word in WORDS:  # each identifier appears whole on one line
        assert any(word in tok for tok in flat), (word, out)
    for expl in ("Pair each invoice", "Draft"):
        assert expl in out
    assert " ".join(REACH_SENTENCE.split()) in " ".join(out.split())


def test_reach_without_explain_shows_no_explanations(tmp_path, capsys, monkeypatch):
    write_workflow(tmp_path / "wf", BASE)
    out = reach(capsys, monkeypatch, 200, tmp_path / "wf")
    assert "Pair each invoice" not in out and "purchase_orders (connection" in out
    narrow = reach(capsys, monkeypatch, 50, tmp_path / "wf")
    assert "sources read" in narrow and "purchase_orders (connection" in narrow
    assert all(len(line.rstrip()) <= 50 for line in narrow.splitlines())


def test_check_names_the_step_once(tmp_path, capsys):
    text = BASE.replace("    code: steps/bills.py:draft\n",
                        "    code: steps/bills.py:draft\n    colour: red\n")
    write_workflow(tmp_path / "wf", text)
    assert main(["check", str(tmp_path / "wf")]) == 1
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "SM003" in ln)
    assert line.endswith("[draft]") and "(step 'draft')" not in line
    assert len(re.findall(r"\bdraft\b", line.replace("steps/bills.py:draft", ""))) == 1
