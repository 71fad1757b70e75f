"""Chance that each customer pays within 14 days on their own, from their history."""

from statistics import NormalDist, mean


def pay_probability(days_late_history, already_late, simulation_seed):
    """Share of simulated payment delays that land in the next 14 days."""
    if len(days_late_history) < 2:
        return None
    model = NormalDist.from_samples(days_late_history)
    window_end = already_late + 14
    if model.stdev == 0:
        return 1.0 if already_late < model.mean <= window_end else 0.0
    draws = model.samples(2000, seed=simulation_seed)
    return sum(1 for d in draws if already_late < d <= window_end) / len(draws)


def risk(overdue, history, simulation_seed):
    scored = []
    for row in overdue["overdue"]:
        past = history.get(row["customer"], [])
        chance = pay_probability(past, row["days_late"], simulation_seed)
        scored.append(dict(row,
                           pays_soon=None if chance is None else round(chance, 3),
                           typical_days_late=round(mean(past), 1) if past else None,
                           late_payments=sum(1 for d in past if d > 0)))
    return {"as_of": overdue["as_of"], "scored": scored}
