"""Exchange rates: the only step allowed on the network."""

import json
import urllib.request


def fx_rates(base, connections):
    url = "https://example.invalid/" + base + "?key=" + connections["ecb"]
    with urllib.request.urlopen(url, timeout=4) as r:
        return json.loads(r.read().decode("utf-8"))
