"""Step-file completion, cursor-marker style: the whole edit and the text after applying it."""

from __future__ import annotations

from completion_helpers import FILES, MANIFEST, apply, complete_at, edits, one
from stepsmith.runner.validator import validate

BILLS = FILES["steps/bills.py"]


def test_import_offers_the_allowed_modules_only(tmp_path):
    text, items = complete_at(tmp_path, "steps/match.py", "import de|\n")
    assert edits(items) == [(m, (1, 7, 1, 9), m) for m in
                            ["datetime", "decimal", "json", "math", "re", "statistics"]]
    assert apply(text, one(items, "decimal")) == "import decimal\n"


def test_network_modules_only_for_public_egress_steps(tmp_path):
    _, items = complete_at(tmp_path, "steps/match.py", "import urllib.|\n")
    assert items == []  # `match` is network: none (SS105)
    egress = MANIFEST.replace("    code: steps/match.py:match\n",
                              "    code: steps/match.py:match\n    network: public_egress\n")
    text, items = complete_at(tmp_path, "steps/match.py", "import urllib.|\n", manifest=egress)
    assert edits(items) == [("urllib.error", (1, 14, 1, 14), "error"),
                            ("urllib.parse", (1, 14, 1, 14), "parse"),
                            ("urllib.request", (1, 14, 1, 14), "request")]
    assert apply(text, items[2]) == "import urllib.request\n"


def test_from_module_import_members(tmp_path):
    text, items = complete_at(tmp_path, "steps/match.py", "from statistics import me|\n")
    names = [i.label for i in items]
    assert {"mean", "median", "NormalDist"} <= set(names)
    assert not [n for n in names if n.startswith("_")]
    item = one(items, "median")
    assert (item.range.column, item.range.end_column, item.new_text) == (23, 25, "median")
    assert apply(text, item) == "from statistics import median\n"
    _, items = complete_at(tmp_path, "steps/match.py", "from statistics import mean, |\n")
    assert "mean" not in [i.label for i in items] and "median" in [i.label for i in items]


def test_module_members_follow_the_dialect(tmp_path):
    marked = "import decimal\n\n\ndef f(x):\n    return decimal.|\n"
    text, items = complete_at(tmp_path, "steps/match.py", marked)
    names = [i.label for i in items]
    assert "Decimal" in names and "ROUND_HALF_UP" in names
    assert not [n for n in names if n.startswith("_")]
    item = one(items, "Decimal")
    assert (item.range.line, item.range.column, item.range.end_column) == (5, 19, 19)
    after = apply(text, item)
    assert after.endswith("    return decimal.Decimal\n")
    assert validate(after) == []


def test_class_members_leave_out_what_check_refuses(tmp_path):
    marked = "import datetime\n\n\ndef f(x):\n    return datetime.datetime.fromi|\n"
    text, items = complete_at(tmp_path, "steps/match.py", marked)
    names = [i.label for i in items]
    assert "fromisoformat" in names and "mro" not in names
    assert not [n for n in names if n.startswith("_")]
    item = one(items, "fromisoformat")
    assert (item.range.column, item.range.end_column, item.new_text) == (29, 34, "fromisoformat")
    assert apply(text, item).endswith("datetime.datetime.fromisoformat\n")


def test_members_through_an_imported_name(tmp_path):
    marked = "from datetime import datetime as dt\n\n\ndef f(x):\n    return dt.fromi|\n"
    text, items = complete_at(tmp_path, "steps/match.py", marked)
    item = one(items, "fromisoformat")  # `dt` is the class datetime.datetime
    assert (item.range.column, item.range.end_column, item.new_text) == (14, 19, "fromisoformat")
    assert "mro" not in [i.label for i in items]
    assert apply(text, item).endswith("    return dt.fromisoformat\n")


def test_a_sampling_method_inserts_its_seed(tmp_path):
    marked = ("import statistics\n\n\ndef f(x):\n"
              "    return statistics.NormalDist(0, 1).samples\n    statistics.NormalDist.sam|\n")
    _, items = complete_at(tmp_path, "steps/match.py", marked)
    item = one(items, "samples")
    assert item.snippet and item.new_text == "samples(${1:n}, seed=${2:0})"
    assert item.filter_text == "samples(n, seed=0)"


def test_a_steps_parameters_and_imports_by_name(tmp_path):
    marked = ("import decimal\n\n\ndef match(invoices, purchase_orders, tolerance):\n"
              "    x = tol|\n")
    text, items = complete_at(tmp_path, "steps/match.py", marked)
    assert edits(items) == [("invoices", (5, 8, 5, 11), "invoices"),
                            ("purchase_orders", (5, 8, 5, 11), "purchase_orders"),
                            ("tolerance", (5, 8, 5, 11), "tolerance"),
                            ("decimal", (5, 8, 5, 11), "decimal")]
    assert apply(text, items[2]).endswith("    x = tolerance\n")


def test_granted_connection_keys(tmp_path):
    marked = BILLS.replace("    return len(matches)\n", '    key = connections["|"]\n')
    text, items = complete_at(tmp_path, "steps/bills.py", marked)
    assert edits(items) == [("xero", (2, 23, 2, 23), "xero")]
    assert apply(text, items[0]).endswith('    key = connections["xero"]\n')


def test_declared_effect_names_in_emit(tmp_path):
    marked = BILLS.replace("    return len(matches)\n", "    effects.emit('dr|', {})\n")
    text, items = complete_at(tmp_path, "steps/bills.py", marked)
    assert edits(items) == [("draft_bill", (2, 18, 2, 20), "draft_bill")]
    after = apply(text, items[0])
    assert after.endswith("    effects.emit('draft_bill', {})\n")


def test_no_grants_for_a_function_no_step_runs(tmp_path):
    marked = FILES["steps/match.py"] + "\n\ndef other(connections):\n    return connections['|']\n"
    _, items = complete_at(tmp_path, "steps/match.py", marked)
    assert items == []


def test_nothing_inside_strings_or_comments(tmp_path):
    for marked in ("import decimal\n\n\ndef f(x):\n    return 'decimal.|'\n",
                   "import decimal\n\n\ndef f(x):\n    return 1  # decimal.|\n"):
        _, items = complete_at(tmp_path, "steps/match.py", marked)
        assert items == [], marked


def test_columns_are_code_points_after_an_emoji(tmp_path):
    marked = "import decimal\n\n\ndef f(x):\n    s = '🧾'; return decimal.Dec|\n"
    text, items = complete_at(tmp_path, "steps/match.py", marked)
    item = one(items, "Decimal")
    col = len("    s = '🧾'; return decimal.")
    assert (item.range.column, item.range.end_column, item.new_text) == (col, col + 3, "Decimal")
    assert apply(text, item).endswith("return decimal.Decimal\n")


def test_the_effect_recorder_offers_emit(tmp_path):
    marked = BILLS.replace("    return len(matches)\n", "    effects.e|\n")
    text, items = complete_at(tmp_path, "steps/bills.py", marked)
    assert edits(items) == [("emit", (2, 12, 2, 13), "emit")]
    assert apply(text, items[0]).endswith("    effects.emit\n")
    # a name `effects` that is not the step's parameter gets nothing
    _, items = complete_at(tmp_path, "steps/match.py", FILES["steps/match.py"].replace(
        "    return []\n", "    effects.|\n"))
    assert items == []
