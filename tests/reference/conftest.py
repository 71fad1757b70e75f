"""The differential tests against the real consumers of the CI outputs print what they
compared: cases and disagreements per consumer (cicorpus.FIGURES)."""


def pytest_terminal_summary(terminalreporter):
    from cicorpus import FIGURES

    if not FIGURES:
        return
    terminalreporter.section("CI outputs vs their real consumers")
    for consumer, (cases, disagreed) in sorted(FIGURES.items()):
        terminalreporter.write_line(f"{consumer}: {cases} cases compared, {disagreed} "
                                    "disagreements")
