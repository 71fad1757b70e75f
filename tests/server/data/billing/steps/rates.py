"""Exchange rates: the only step allowed on the network."""

import json
import urllib.request


def fx_rates(base):
    with urllib.request.urlopen("https://example.invalid/" + base, timeout=4) as r:
        return json.loads(r.read().decode("utf-8"))
