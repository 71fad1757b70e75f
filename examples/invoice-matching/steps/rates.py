"""Reference exchange rates. The only step in this workflow allowed on the network."""

import json
import urllib.request
from decimal import Decimal


def fx_rates(currencies, base):
    url = "https://api.frankfurter.app/latest?from=" + base + "&to=" + ",".join(currencies)
    with urllib.request.urlopen(url, timeout=4) as response:
        body = json.loads(response.read().decode("utf-8"))
    rates = {code: str(Decimal(str(value))) for code, value in body["rates"].items()}
    return {"base": base, "date": body["date"], "rates": rates}
